package codex_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/fakeopenai"
)

// TestCodexWrappedSecretIsRedacted: the real Codex at 24x80 breaks a long
// key after a hyphen, wherever the next piece does not fit, and goes on in
// a row indented two columns (testdata/fixtures/codex/CAPTURES.md, "Long
// secrets"): "export OPENAI_API_KEY=sk-proj-FYY-" / "  kv5ZJr…" in the
// fake model's answer, "my key is sk-ant-api03-…FkM-" / "  R5Kjp…" in the
// composer. No piece of either key is left in the wait's screen (text and
// cells), the plugin's state or an extraction from its dialog, while the
// raw screen shows them.
func TestCodexWrappedSecretIsRedacted(t *testing.T) {
	const typed = "sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA"
	srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	h, _ := startCodexAdapter(t, srv)
	s := h.Session()
	st := codexWait(t, h, "wait_ready_matcher", "", 60*time.Second)
	require.Equal(t, "ready", st.State, "evidence %q", st.Evidence)

	check := func(when, key string, res *ptywright.WaitResult, st ptywright.StateSnapshot) {
		t.Helper()
		raw := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
		require.Contains(t, raw.PlainText, key[40:60], "%s: the raw screen shows the key", when)
		snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
		rows := make([]string, snap.Size.Rows)
		for _, cell := range snap.Cells {
			rows[cell.Row] += cell.Text
		}
		state, err := json.Marshal(st)
		require.NoError(t, err)
		for what, text := range map[string]string{"the wait's screen": res.Snapshot.PlainText, "the cells": strings.Join(rows, "\n"), "the state": string(state)} {
			for i := 0; i+9 <= len(key); i++ {
				require.NotContains(t, text, key[i:i+9], "%s: %s: a piece of the key leaked", when, what)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	codexSend(t, h, "send_prompt", `{"prompt":"`+fakeopenai.DemoSecret+` please"}`)
	st = codexWait(t, h, "wait_lifecycle", `{"state":"completed"}`, 60*time.Second)
	require.Equal(t, "completed_turn", st.State, "evidence %q", st.Evidence)
	res, err := s.Wait(ctx, ptywright.ContainsText("reaches every new shell"))
	require.NoError(t, err)
	check("answered", fakeopenai.DemoSecretKey, res, st)
	// An extraction searches the plugin's dialog, laid out anew.
	ans, err := h.Extract(ctx, ptywright.Extraction{Regex: `(?s)(Set it in your shell profile:.*new shell\.)`})
	require.NoError(t, err)
	require.Contains(t, ans.Text, "export OPENAI_API_KEY=")
	for i := 0; i+9 <= len(fakeopenai.DemoSecretKey); i++ {
		require.NotContains(t, ans.Text, fakeopenai.DemoSecretKey[i:i+9], "the extraction: a piece of the key leaked")
	}

	require.NoError(t, s.Send(ctx, ptywright.Text("my key is "+typed+" please remember it")))
	res, err = s.Wait(ctx, ptywright.ContainsText("please remember it"))
	require.NoError(t, err)
	st, err = h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", st.State, "evidence %q", st.Evidence)
	check("typed", typed, res, st)
}
