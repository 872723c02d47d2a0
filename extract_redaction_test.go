//go:build unix

package ptywright_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

// TestExtractIsRedacted: an answer holding a secret comes back redacted
// unless the caller asks for raw text explicitly.
func TestExtractIsRedacted(t *testing.T) {
	const secret = "sk-ant-api03-Wq3Er5Ty7Ui9Op1As3Df5Gh7AA" // fits on one row
	h := startLifecycleAdapter(t, lifecycleLua, ptywright.HandleOptions{
		Lifecycle: &contract.LifecycleOptions{CompletionStability: 200 * time.Millisecond},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	prompt, err := json.Marshal(map[string]string{"prompt": secret})
	require.NoError(t, err)
	_, err = h.Turn(ctx, "send_prompt", prompt, contract.LifecycleWaitIntent, nil)
	require.NoError(t, err)

	sentinels := []string{"<<<A>>>", "<<<E>>>"}
	ans, err := h.Extract(ctx, ptywright.Extraction{Sentinels: sentinels})
	require.NoError(t, err)
	require.Equal(t, "[REDACTED]", ans.Text, "nil means the default policy")

	ans, err = h.Extract(ctx, ptywright.Extraction{Regex: `(sk-ant-\S+)`})
	require.ErrorIs(t, err, ptywright.ErrNoMatch, "the regex searches the redacted dialog")

	ans, err = h.Extract(ctx, ptywright.Extraction{Sentinels: sentinels, Redactor: ptywright.NoRedaction()})
	require.NoError(t, err)
	require.Equal(t, secret, ans.Text, "raw only when asked for")
}

// quotingExtension is the repl plugin with a classifier that quotes the
// screen in its evidence and metadata, as real plugins do.
type quotingExtension struct{ replExtension }

func (e *quotingExtension) Classify(ctx context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	st, err := e.replExtension.Classify(ctx, cc)
	st.Evidence = "screen: " + cc.BodyText
	st.Metadata = map[string]any{"lines": strings.Split(cc.BodyText, "\n")}
	return st, err
}

// TestHandleStatesAreRedacted: a state a plugin filled with screen text is
// redacted wherever the handle returns it; Inspect honours its redactor.
func TestHandleStatesAreRedacted(t *testing.T) {
	const secret = "sk-ant-api03-Wq3Er5Ty7Ui9Op1As3Df5Gh7AA"
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", replScript}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, &quotingExtension{}, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("READY>"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := h.Turn(ctx, "send_prompt", json.RawMessage(`{"prompt":"`+secret+`"}`), "", nil)
	require.NoError(t, err)
	require.Contains(t, res.State.Evidence, "answer: [REDACTED]")
	for _, st := range []ptywright.StateSnapshot{res.State, mustState(t, h)} {
		b, err := json.Marshal(st)
		require.NoError(t, err)
		require.NotContains(t, string(b), "Wq3Er5Ty7Ui9")
	}
	send, err := h.Send(ctx, "noop", nil)
	require.NoError(t, err)
	require.NotContains(t, send.State.Evidence, "Wq3Er5Ty7Ui9")

	in, err := h.Inspect(ctx, nil)
	require.NoError(t, err)
	require.NotContains(t, in.State.Evidence, "Wq3Er5Ty7Ui9")
	in, err = h.Inspect(ctx, ptywright.NoRedaction())
	require.NoError(t, err)
	require.Contains(t, in.BodyText, secret, "raw only when asked for")
}

func mustState(t *testing.T, h *ptywright.ExtensionHandle) ptywright.StateSnapshot {
	t.Helper()
	st, err := h.State(context.Background())
	require.NoError(t, err)
	return st
}
