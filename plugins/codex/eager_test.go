package codex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
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

// codexTurn is adapter.turn as an eager client sends it: the intent, then
// a wait for the lifecycle to complete.
func codexTurn(t *testing.T, h *ptywright.ExtensionHandle, prompt string) ptywright.TurnResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	params, err := json.Marshal(map[string]string{"prompt": prompt})
	require.NoError(t, err)
	res, err := h.Turn(ctx, "send_prompt", params, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"completed"}`))
	require.NoError(t, err, "turn %q; screen:\n%s", prompt, h.Session().Screen().PlainText())
	return res
}

// turnText is metadata.turn.text of a classification, or "".
func turnText(st ptywright.StateSnapshot) string {
	turn, _ := st.Metadata["turn"].(map[string]any)
	text, _ := turn["text"].(string)
	return text
}

// TestCodexEagerFreshStarts: ten fresh Codex starts (a fresh HOME and
// CODEX_HOME each, every other one with a slow and a failing MCP server
// configured; the project's scripts never install bubblewrap, and the
// test logs whether the machine has it), the prompt sent the
// moment the plugin first reports the composer ready. Every turn is
// answered, and no reply calls a turn completed that did not run: a
// completed lifecycle comes only with the prompt taken (receipt
// confirmed, the fake API asked) and the answer on screen.
func TestCodexEagerFreshStarts(t *testing.T) {
	if p, err := exec.LookPath("bwrap"); err == nil {
		t.Logf("bubblewrap is installed here (%s); a user's fresh machine may not have it", p)
	} else {
		t.Log("bubblewrap is not installed, as on a fresh machine")
	}
	srv := fakeopenai.NewServer(append(codexPolicyScript(), fakeopenai.DemoScript()...), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	for i := range 10 {
		t.Run(fmt.Sprintf("start%d", i), func(t *testing.T) {
			mods := []func(*fakeopenai.CodexConfig){func(c *fakeopenai.CodexConfig) { c.Retries = 2 }}
			if i%2 == 1 {
				mods = append(mods, func(c *fakeopenai.CodexConfig) {
					c.MCPServers = []fakeopenai.MCPServer{fakeopenai.SlowMCPServer("slowpoke", 3), fakeopenai.FailingMCPServer("broken")}
				})
			}
			var hopts func(*ptywright.HandleOptions)
			var auditPath string
			if i == 2 {
				hopts = withCodexPolicy(t, &auditPath)
			}
			h, work := startCodexAdapterOpts(t, srv, true, nil, hopts, mods...)
			first := codexUntil(t, h, "the composer", tuitest.StateIs("ready"))
			prompt := fmt.Sprintf("What is the %s? (start %d)", fakeopenai.DemoAnswer, i)
			res := codexTurn(t, h, prompt)
			rc := res.Receipt
			require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "start %d: first ready at %d (%s): %+v", i, first.Sequence, first.Evidence, rc)
			require.NotNil(t, res.State.Lifecycle)
			require.Equal(t, contract.LifecycleCompleted, res.State.Lifecycle.State)
			require.Equal(t, 1, res.State.Lifecycle.TurnID)
			require.Equal(t, "completed_turn", res.State.State, "evidence %q", res.State.Evidence)
			require.Contains(t, turnText(res.State), fakeopenai.Sentinel("42"), "the answer is the turn's text")
			asked := false
			for _, r := range srv.Requests() {
				asked = asked || strings.Contains(r.LastUserText(), prompt)
			}
			require.True(t, asked, "start %d: the fake API never got the prompt the reply calls completed", i)
			t.Logf("start %d: first ready at sequence %d (%s); keys held %d ms, confirmed after %d ms", i, first.Sequence, first.Evidence, rc.HeldMs, rc.ElapsedMs)

			if i == 2 {
				codexPolicy(t, h, work, auditPath)
			}
			if i == 0 {
				// A turn through two HTTP 500s (Codex retries) ends with the answer.
				res = codexTurn(t, h, "Please answer "+fakeopenai.DemoFlaky)
				require.Equal(t, ptywright.EffectConfirmed, res.Receipt.Effect)
				require.Equal(t, "completed_turn", res.State.State, "evidence %q", res.State.Evidence)
				require.Equal(t, 2, res.State.Lifecycle.TurnID)
				require.Contains(t, turnText(res.State), fakeopenai.Sentinel("flaky-ok"))
				n := 0
				for _, r := range srv.Requests() {
					if strings.Contains(r.LastUserText(), fakeopenai.DemoFlaky) {
						n++
					}
				}
				require.Equal(t, 3, n, "two 500s and the answer")

				// An answer that quotes the approval dialog is the answer,
				// and 2 s later the dialog wait still finds no dialog.
				res = codexTurn(t, h, "Show me "+fakeopenai.DemoQuote)
				require.Equal(t, "completed_turn", res.State.State, "evidence %q", res.State.Evidence)
				require.Contains(t, turnText(res.State), "Would you like to run the following command?")
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_, _, err := h.Wait(ctx, "wait_approval_matcher", nil)
				require.ErrorIs(t, err, ptywright.ErrTimeout, "a quoted dialog is not a dialog")
				st, err := h.State(context.Background())
				require.NoError(t, err)
				require.Equal(t, "completed_turn", st.State)
				require.NotEqual(t, contract.BusinessAwaitingOperator, st.Assessment.BusinessState)
			}
		})
	}
}

// codexPolicyScript is the fake's part for the policy: a shell call to
// touch a file, then one to remove it.
func codexPolicyScript() fakeopenai.Script {
	return fakeopenai.Script{
		{Name: "policy-touch-done", Match: fakeopenai.AfterToolOutput("call_policy_touch"), Reply: fakeopenai.Text("Touched. " + fakeopenai.Sentinel("touch-ok"))},
		{Name: "policy-touch", Match: fakeopenai.UserSays("policy touch"), Reply: fakeopenai.ShellCall("call_policy_touch", "touch heldout_1.txt", "Create heldout_1.txt?")},
		{Name: "policy-rm", Match: fakeopenai.UserSays("policy rm"), Reply: fakeopenai.ShellCall("call_policy_rm", "rm heldout_1.txt", "Remove heldout_1.txt?")},
	}
}

// withCodexPolicy gives a run the heldout policy and its audit log,
// whose path it stores in *path.
func withCodexPolicy(t *testing.T, path *string) func(*ptywright.HandleOptions) {
	policy, audit, p := tuitest.HeldoutPolicy(t, "codex")
	*path = p
	return func(o *ptywright.HandleOptions) { o.Policy, o.Audit = policy, audit }
}

// codexPolicy: the client only sends prompts and waits; the policy
// answers Codex's approval dialogs meanwhile, and the audit log names
// each rule.
func codexPolicy(t *testing.T, h *ptywright.ExtensionHandle, work, auditPath string) {
	heldout := filepath.Join(work, "heldout_1.txt")
	res := codexTurn(t, h, "policy touch please")
	require.Equal(t, "completed_turn", res.State.State, "evidence %q", res.State.Evidence)
	require.Contains(t, turnText(res.State), fakeopenai.Sentinel("touch-ok"))
	_, err := os.Stat(heldout)
	require.NoError(t, err, "the allowed command did not run")

	sent, err := h.Send(context.Background(), "send_prompt", json.RawMessage(`{"prompt":"policy rm please"}`))
	require.NoError(t, err)
	require.Equal(t, ptywright.EffectConfirmed, sent.Receipt.Effect, "%+v", sent.Receipt)
	got := tuitest.AuditByRule(t, auditPath, 2, 60*time.Second)
	require.Equal(t, []string{
		`approve "touch heldout_1.txt" rule allow-heldout "Yes, proceed" confirmed`,
		`deny "rm heldout_1.txt" rule deny-rm "No, and tell Codex what to do differently" confirmed`,
	}, got)
	codexUntil(t, h, "the end of the denied turn", tuitest.StateIs("ready", "completed_turn", "error"))
	_, err = os.Stat(heldout)
	require.NoError(t, err, "the denied command ran")
}
