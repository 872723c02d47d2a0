package claudecode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/fakeanthropic"
	"ptywright/internal/tuitest"
	"ptywright/plugins"
)

// TestClaudeCodeWrappedSecretIsRedacted types a 108-character key into the
// real Claude Code at 24x80. The prompt box breaks it inside the key at
// column 78 and goes on in a row indented two columns; the answer that
// quotes it fills a row and goes on after the indent
// (testdata/fixtures/claude_code/CAPTURES.md, "Long secrets"). No piece of
// the key is left in the wait's screen (text and cells) or the plugin's
// state, before and after the prompt is sent, while the raw screen shows
// it.
func TestClaudeCodeWrappedSecretIsRedacted(t *testing.T) {
	bin := tuitest.ClaudeBinary(t)
	const key = "sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA"
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{{
		When:  fakeanthropic.Match{Prompt: "my key is"},
		Reply: fakeanthropic.Reply{Text: "Noted: the key you pasted, " + key + ", is an Anthropic API key. Keep it out of chat."},
	}})
	reg, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = reg.Close() })
	ext, err := reg.NewExtension("claude-code")
	require.NoError(t, err)
	home, work := t.TempDir(), t.TempDir()
	seedOnboardedHome(t, home)
	s, err := ptywright.Start(ptywright.Options{Program: bin, Args: []string{"--permission-mode", "default"}, Dir: work,
		Env: claudeEnv(srv, home), Size: ptywright.Size{Rows: 24, Cols: 80}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Predicates: reg})
	t.Cleanup(func() { _ = h.Close() })
	c := &claudeE2E{t: t, h: h, srv: srv}
	c.until("the trust dialog", tuitest.StateIs("waiting_for_trust"))
	c.send("approve_trust", nil)
	c.until("the prompt", tuitest.StateIs("ready"))

	// noPiece fails when text holds 9 bytes of the key in a row.
	noPiece := func(what, text string) {
		t.Helper()
		for i := 0; i+9 <= len(key); i++ {
			if strings.Contains(text, key[i:i+9]) {
				c.fail("%s: a piece of the key leaked (%q):\n%s", what, key[i:i+9], text)
			}
		}
	}
	check := func(when string, res *ptywright.WaitResult, st ptywright.StateSnapshot) {
		t.Helper()
		raw := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
		require.Contains(t, raw.PlainText, key[40:60], "%s: the raw screen shows the key", when)
		noPiece(when+": the wait's screen", res.Snapshot.PlainText)
		snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
		rows := make([]string, snap.Size.Rows)
		for _, cell := range snap.Cells {
			rows[cell.Row] += cell.Text
		}
		noPiece(when+": the cells", strings.Join(rows, "\n"))
		state, err := json.Marshal(st)
		require.NoError(t, err)
		noPiece(when+": the state", string(state))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, s.Send(ctx, ptywright.Text("my key is "+key+" please remember it")))
	res, err := s.Wait(ctx, ptywright.ContainsText("please remember it"))
	require.NoError(t, err)
	st, err := h.State(ctx)
	require.NoError(t, err)
	c.expect(st, "ready")
	check("typed", res, st)

	require.NoError(t, s.Send(ctx, ptywright.Press(ptywright.KeyEnter)))
	st = c.until("the answer", tuitest.StateIs("completed_turn"))
	res, err = s.Wait(ctx, ptywright.ContainsText("Keep it out of chat"))
	require.NoError(t, err)
	check("answered", res, st)
}
