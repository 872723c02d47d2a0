package codex_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/fakeopenai"
	"ptywright/internal/tuitest"
)

// codexUntil is tuitest.EagerUntil for the Codex tests: it fails with the screen.
func codexUntil(t *testing.T, h *ptywright.ExtensionHandle, what string, ok func(ptywright.StateSnapshot) bool) ptywright.StateSnapshot {
	t.Helper()
	st, err := tuitest.EagerUntil(h, ok, 60*time.Second)
	require.NoError(t, err, "until %s; screen:\n%s", what, h.Session().Screen().PlainText())
	return st
}

// TestCodexEager drives the real Codex CLI as an eager agent: each intent
// is sent the moment its state is first classified (the trust prompt, the
// composer, an approval dialog, a running turn) and its receipt must say
// the program took it: trust, a turn, a denied command and a cancel.
func TestCodexEager(t *testing.T) {
	srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	h, _ := startCodexAdapterTrust(t, srv, false)

	codexUntil(t, h, "the trust prompt", tuitest.StateIs("waiting_for_trust"))
	codexSend(t, h, "approve_trust", "")

	codexUntil(t, h, "the composer", tuitest.StateIs("ready"))
	codexSend(t, h, "send_prompt", `{"prompt":"What is the `+fakeopenai.DemoAnswer+`?"}`)
	st := codexWait(t, h, "wait_lifecycle", `{"state":"completed"}`, 60*time.Second)
	require.Equal(t, "completed_turn", st.State, "evidence %q", st.Evidence)

	// A command denied on the dialog's first frame: Esc ends the turn.
	codexSend(t, h, "send_prompt", `{"prompt":"Use the `+fakeopenai.DemoTool+` now"}`)
	codexUntil(t, h, "the approval dialog", tuitest.StateIs("waiting_for_permission"))
	codexSend(t, h, "deny", "")
	st = codexUntil(t, h, "the end of the denied turn", tuitest.StateIs("ready", "completed_turn", "error"))
	t.Logf("after deny: %s (%s)", st.State, st.Evidence)

	// A slow turn cancelled the moment it is seen running.
	codexSend(t, h, "send_prompt", `{"prompt":"`+fakeopenai.DemoSlow+`"}`)
	codexUntil(t, h, "the running turn", tuitest.StateIs("thinking"))
	codexSend(t, h, "cancel", "")
	st = codexUntil(t, h, "the prompt after the cancel", tuitest.StateIs("ready", "completed_turn", "error"))
	t.Logf("after cancel: %s (%s)", st.State, st.Evidence)
}
