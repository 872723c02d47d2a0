//go:build unix

package ptywright_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/plugins"
)

// TestProgramWrappedSecretInPluginState: the claude-code plugin quotes the
// prompt box and the answer in its state without the prompt's "❯ " and
// the continuation indents ("my key is sk-…-R\n5Kjp…"), so the rows are no
// longer split where the screen split them. The handle hides every piece
// of a secret the screen shows wherever a state, an inspection or its
// projection quotes it, while the plugin, asked raw, does quote the key.
func TestProgramWrappedSecretInPluginState(t *testing.T) {
	tuitest.NoLeak(t)
	reg, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = reg.Close() })
	for _, name := range []string{
		"claude_code/prompt_long_secret_24x80",
		"claude_code/completed_turn_long_secret_24x80",
		"claude_code/prompt_long_bearer_24x80",
		"claude_code/completed_turn_long_bearer_24x80",
		"claude_code/prompt_long_secret_40x120",
	} {
		t.Run(name, func(t *testing.T) {
			size := replayCapture(t, name).Size
			raw, err := os.ReadFile(filepath.Join("testdata/fixtures", name+".ansi"))
			require.NoError(t, err)
			screen := filepath.Join(t.TempDir(), "screen")
			// No line feed after the last row: it would scroll the first away.
			require.NoError(t, os.WriteFile(screen, []byte(strings.TrimSuffix(string(raw), "\n")), 0o600))
			s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `cat "$0"; sleep 30`, screen}, Size: size})
			ext, err := reg.NewExtension("claude-code")
			require.NoError(t, err)
			h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
			t.Cleanup(func() { require.NoError(t, h.Close()) })
			waitFor(t, s, ptywright.ContainsText("manual mode on"))
			ctx := context.Background()

			open, err := h.Inspect(ctx, ptywright.NoRedaction())
			require.NoError(t, err)
			quoted, err := json.Marshal(open.State.Metadata)
			require.NoError(t, err)
			st, err := h.State(ctx)
			require.NoError(t, err)
			in, err := h.Inspect(ctx, nil)
			require.NoError(t, err)
			shown := false
			for _, key := range []string{capturedAntKey, capturedProjKey, capturedBearer} {
				shown = shown || leakedPiece(string(quoted), key) != ""
				in := in
				in.TranscriptTail = "" // the output stream's redaction: see the report
				for what, v := range map[string]any{"state": st, "inspection": in} {
					text, err := json.Marshal(v)
					require.NoError(t, err)
					require.Empty(t, leakedPiece(string(text), key), "%s: a piece of %s leaked:\n%s", what, key[:12], text)
				}
			}
			require.True(t, shown, "the plugin quotes a key: %s", quoted)
			require.Equal(t, open.State.State, st.State)
		})
	}
}

// joiningExtension quotes the screen laid out anew, as a plugin quoting a
// prompt does: every row's indent stripped, the rows joined.
type joiningExtension struct{ replExtension }

func (e *joiningExtension) Classify(ctx context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	st, err := e.replExtension.Classify(ctx, cc)
	var rows []string
	for _, row := range strings.Split(cc.Screen, "\n") {
		rows = append(rows, strings.TrimLeft(row, " "))
	}
	st.Evidence = strings.Join(rows, "\n")
	return st, err
}

// An explanation that quotes a program-wrapped secret laid out anew hides
// every piece of it, explained now or held (Explain redacts with the
// secrets of the screen the classification read).
func TestProgramWrappedSecretInExplanation(t *testing.T) {
	tuitest.NoLeak(t)
	const name = "claude_code/prompt_long_secret_24x80"
	size := replayCapture(t, name).Size
	raw, err := os.ReadFile(filepath.Join("testdata/fixtures", name+".ansi"))
	require.NoError(t, err)
	screen := filepath.Join(t.TempDir(), "screen")
	require.NoError(t, os.WriteFile(screen, []byte(strings.TrimSuffix(string(raw), "\n")), 0o600))
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `cat "$0"; sleep 30`, screen}, Size: size})
	h := ptywright.NewExtensionHandle(s, &joiningExtension{}, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("manual mode on"))
	ctx := context.Background()
	x, err := h.Explain(ctx)
	require.NoError(t, err)
	unredacted, err := h.Explain(ctx, ptywright.ExplainLast(), ptywright.ExplainRedactor(ptywright.NoRedaction()))
	require.NoError(t, err)
	require.NotEmpty(t, leakedPiece(unredacted.Evidence, capturedAntKey), "the raw evidence quotes the key")
	held, err := h.Explain(ctx, ptywright.ExplainLast())
	require.NoError(t, err)
	for _, rx := range []contract.Explanation{x, held} {
		require.Empty(t, leakedPiece(rx.Evidence, capturedAntKey), "a piece of the key leaked:\n%s", rx.Evidence)
		require.Empty(t, rx.Screen, "the redacted copy carries no raw screen")
	}
}
