package codex_test

import (
	"context"
	"encoding/json"
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
	"ptywright/plugins"
)

// codexInstallCommand installs the Codex CLI the end-to-end test drives.
// codexHome makes a fresh HOME with CODEX_HOME inside and a work
// directory, outside the temp dir when it can: with CODEX_HOME under /tmp
// Codex warns that it will not create its helper binaries there.
func codexHome(t *testing.T) (home, work string) {
	t.Helper()
	parent := "/var/tmp"
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		parent = ""
	}
	home, err := os.MkdirTemp(parent, "ptywright-codex-e2e-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	work = filepath.Join(home, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	return home, work
}

// startCodexAdapter starts the codex plugin's default target (with the
// binary found) against srv, as adapter.start would: a fresh HOME and
// CODEX_HOME whose config.toml points at the fake, and an API key. Its
// cleanup closes the handle and fails the test if any process of the run
// (one that names the run's HOME) is still running.
func startCodexAdapter(t *testing.T, srv *fakeopenai.Server) (*ptywright.ExtensionHandle, string) {
	t.Helper()
	return startCodexAdapterWith(t, srv, true, nil)
}

// startCodexAdapterTrust is startCodexAdapter with the work directory
// trusted in config.toml or not (then Codex opens at its trust prompt).
func startCodexAdapterTrust(t *testing.T, srv *fakeopenai.Server, trusted bool) (*ptywright.ExtensionHandle, string) {
	t.Helper()
	return startCodexAdapterWith(t, srv, trusted, nil)
}

// startCodexAdapterArgs is startCodexAdapter with args in place of the
// default target's, as an adapter.start that passes args.
func startCodexAdapterArgs(t *testing.T, srv *fakeopenai.Server, args []string) (*ptywright.ExtensionHandle, string) {
	t.Helper()
	return startCodexAdapterWith(t, srv, true, args)
}

// startCodexAdapterWith is startCodexAdapter with the work directory
// trusted or not and args in place of the default target's (nil keeps
// them); mods change the config.toml written for the run.
func startCodexAdapterWith(t *testing.T, srv *fakeopenai.Server, trusted bool, args []string, mods ...func(*fakeopenai.CodexConfig)) (*ptywright.ExtensionHandle, string) {
	t.Helper()
	return startCodexAdapterOpts(t, srv, trusted, args, nil, mods...)
}

// startCodexAdapterOpts is startCodexAdapterWith with handle options
// changed by hopts (when not nil): a policy, an audit log.
func startCodexAdapterOpts(t *testing.T, srv *fakeopenai.Server, trusted bool, args []string, hopts func(*ptywright.HandleOptions), mods ...func(*fakeopenai.CodexConfig)) (*ptywright.ExtensionHandle, string) {
	t.Helper()
	bin := tuitest.CodexBinary(t)
	home, work := codexHome(t)
	codexHomeDir := filepath.Join(home, ".codex")
	cfg := fakeopenai.CodexConfig{BaseURL: srv.BaseURL()}
	for _, m := range mods {
		m(&cfg)
	}
	if trusted {
		cfg.Workdir = work
	} else {
		// Codex 0.169 asks about trust only inside a git repository.
		out, err := exec.Command("git", "init", "-q", work).CombinedOutput()
		require.NoError(t, err, "git init: %s", out)
	}
	require.NoError(t, cfg.Write(codexHomeDir))

	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	ext, err := plugins.NewExtension("codex")
	require.NoError(t, err)
	target := ext.Manifest().DefaultTarget
	require.NotNil(t, target)
	require.Equal(t, "codex", target.Program)
	if args == nil {
		args = target.Args
	}

	s, err := ptywright.Start(ptywright.Options{
		Program: bin,
		Args:    args,
		Dir:     work,
		Env: map[string]string{
			"HOME": home, "CODEX_HOME": codexHomeDir, fakeopenai.APIKeyEnv: "sk-test-0000000000000000",
			"LANG": "C.UTF-8",
		},
		Size: ptywright.Size{Rows: 24, Cols: 80},
	})
	if err != nil {
		_ = ext.Close()
	}
	require.NoError(t, err)
	ho := ptywright.HandleOptions{Predicates: plugins, Lifecycle: &contract.LifecycleOptions{}}
	if hopts != nil {
		hopts(&ho)
	}
	h := ptywright.NewExtensionHandle(s, ext, ho)
	t.Cleanup(func() { closeCodexRun(t, h, home) })
	return h, work
}

// closeCodexRun closes the handle and fails the test if any process of the
// run survives it: Close has returned, so nothing may be left, whether it
// stayed in the session's process group or detached from it (Codex's
// app-server daemon calls setsid). Survivors are listed, then killed.
func closeCodexRun(t *testing.T, h *ptywright.ExtensionHandle, home string) {
	t.Helper()
	start := time.Now()
	_ = h.Close() // Best effort: what matters here is what is left running.
	t.Logf("handle closed in %s", time.Since(start).Round(time.Millisecond))
	left, ok := tuitest.ProcessesOf(home)
	if !ok {
		t.Logf("no /proc: processes of the run are not checked")
		return
	}
	if len(left) > 0 {
		t.Errorf("processes of the run outlived the handle's close:\n\t%s", strings.Join(left, "\n\t"))
		tuitest.KillProcessesOf(home)
	}
}

// codexWait runs a wait intent and fails with the screen when it does not
// match in time.
func codexWait(t *testing.T, h *ptywright.ExtensionHandle, intent string, params string, d time.Duration) ptywright.StateSnapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	st, _, err := h.Wait(ctx, intent, raw)
	require.NoError(t, err, "%s: screen:\n%s", intent, h.Session().Screen().PlainText())
	return st
}

func codexSend(t *testing.T, h *ptywright.ExtensionHandle, intent, params string) ptywright.StateSnapshot {
	t.Helper()
	res, err := h.Send(context.Background(), intent, json.RawMessage(params))
	require.NoError(t, err, "%s: screen:\n%s", intent, h.Session().Screen().PlainText())
	rc := res.Receipt
	require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "%s: the program did not take it: %+v\nscreen:\n%s", intent, rc, h.Session().Screen().PlainText())
	t.Logf("%s to %s: %s, %d attempt(s), keys held %d ms, confirmed after %d ms", intent, rc.StateBefore, rc.Effect, rc.Attempts, rc.HeldMs, rc.ElapsedMs)
	return res.State
}

// codexLifecycle returns the handle's lifecycle state.
func codexLifecycle(t *testing.T, h *ptywright.ExtensionHandle) contract.LifecycleState {
	t.Helper()
	lc := h.Lifecycle()
	require.NotNil(t, lc, "the handle tracks no lifecycle")
	return lc.State
}

// TestCodexEndToEnd drives the real Codex CLI through the codex plugin
// only (ExtensionHandle intents, waits, lifecycle, projection) against the
// fake Responses API: a prompt to a completed turn whose sentinel answer is
// extracted, then a tool call that waits for approval, is approved, runs
// and completes.
func TestCodexEndToEnd(t *testing.T) {
	// Two approvals, one after the other: approving the first brings the
	// second.
	script := append(fakeopenai.Script{
		{Name: "two-done", Match: fakeopenai.AfterToolOutput("call_dlg_2"), Reply: fakeopenai.Text("Both handled. " + fakeopenai.Sentinel("two-ok"))},
		{Name: "two-second", Match: fakeopenai.AfterToolOutput("call_dlg_1"), Reply: fakeopenai.ShellCall("call_dlg_2",
			"printf 'two\\n' > second.txt", "Allow writing second.txt?")},
		{Name: "two-first", Match: fakeopenai.UserSays("TWODLG"), Reply: fakeopenai.ShellCall("call_dlg_1",
			"printf 'one\\n' > first.txt", "Allow writing first.txt?")},
	}, fakeopenai.DemoScript()...)
	srv := fakeopenai.NewServer(script, fakeopenai.Options{})
	t.Cleanup(srv.Close)
	start := time.Now()
	h, work := startCodexAdapter(t, srv)
	ctx := context.Background()
	sentinels := ptywright.Extraction{Sentinels: []string{fakeopenai.SentinelOpen, fakeopenai.SentinelClose}}

	st := codexWait(t, h, "wait_ready_matcher", "", 60*time.Second)
	require.Equal(t, "ready", st.State, "evidence %q", st.Evidence)
	require.True(t, st.Assessment.SubmitReady(), "assessment %+v", st.Assessment)
	require.Equal(t, "0.169.0", st.Assessment.ParserMetadata.DetectedVersion)
	require.Equal(t, contract.LifecycleWaiting, codexLifecycle(t, h))
	t.Logf("ready after %s", time.Since(start).Round(time.Millisecond))

	// A turn to completion; the answer comes back between sentinels.
	codexSend(t, h, "send_prompt", `{"prompt":"What is the `+fakeopenai.DemoAnswer+`?"}`)
	st = codexWait(t, h, "wait_lifecycle", `{"state":"completed"}`, 60*time.Second)
	require.Equal(t, "completed_turn", st.State, "evidence %q screen:\n%s", st.Evidence, h.Session().Screen().PlainText())
	require.Equal(t, contract.LifecycleCompleted, st.Lifecycle.State)
	require.Equal(t, 1, st.Lifecycle.TurnID)
	require.True(t, st.Lifecycle.SubmitReady)
	ans, err := h.Extract(ctx, sentinels)
	require.NoError(t, err)
	require.Equal(t, "42", ans.Text)
	turn, _ := st.Metadata["turn"].(map[string]any)
	require.Equal(t, "Here is the answer: "+fakeopenai.Sentinel("42"), turn["text"])
	proj, err := h.Project(ctx, 0, 0)
	require.NoError(t, err)
	require.Equal(t, "codex.v1", proj.Metadata.ProjectorID)
	require.Contains(t, proj.DialogText, "What is the "+fakeopenai.DemoAnswer+"?")
	require.NotContains(t, proj.DialogText, "Ask Codex to do anything", "the composer is chrome")
	require.NotContains(t, proj.DialogText, "OpenAI Codex (v", "the banner is chrome")
	require.Contains(t, proj.NormalizedText, "Ask Codex to do anything")
	t.Logf("first turn completed after %s", time.Since(start).Round(time.Millisecond))

	// A tool call that needs approval.
	codexSend(t, h, "send_prompt", `{"prompt":"Use the `+fakeopenai.DemoTool+` now"}`)
	st = codexWait(t, h, "wait_approval_matcher", "", 60*time.Second)
	require.Equal(t, "waiting_for_permission", st.State, "evidence %q", st.Evidence)
	require.Equal(t, contract.BusinessAwaitingOperator, st.Assessment.BusinessState)
	require.Equal(t, contract.InputModal, st.Assessment.InputMode)
	require.Equal(t, contract.UIContext("approval_prompt"), st.Assessment.UIContext)
	require.Contains(t, st.Assessment.OperatorBlockedExcerpt, "Would you like to run the following command?")
	require.Equal(t, contract.LifecycleInProgress, st.Lifecycle.State)
	require.Equal(t, 2, st.Lifecycle.TurnID)
	approval, _ := st.Metadata["approval"].(map[string]any)
	require.Equal(t, `printf 'approved\n' > `+fakeopenai.DemoToolFile, approval["command"])
	_, err = os.Stat(filepath.Join(work, fakeopenai.DemoToolFile))
	require.ErrorIs(t, err, os.ErrNotExist, "the command ran before approval")

	codexSend(t, h, "approve", "")
	st = codexWait(t, h, "wait_lifecycle", `{"state":"completed"}`, 60*time.Second)
	require.Equal(t, "completed_turn", st.State, "evidence %q screen:\n%s", st.Evidence, h.Session().Screen().PlainText())
	require.Equal(t, 2, st.Lifecycle.TurnID)
	got, err := os.ReadFile(filepath.Join(work, fakeopenai.DemoToolFile))
	require.NoError(t, err)
	require.Equal(t, "approved\n", string(got))
	ans, err = h.Extract(ctx, sentinels)
	require.NoError(t, err)
	require.Equal(t, "tool-ok", ans.Text)
	t.Logf("approved turn completed after %s", time.Since(start).Round(time.Millisecond))

	// An answer whose dialog changed between the state read and the key
	// (a second approval after the first) is refused, and nothing is
	// pressed.
	codexSend(t, h, "send_prompt", `{"prompt":"Run TWODLG now"}`)
	st = codexWait(t, h, "wait_approval_matcher", "", 60*time.Second)
	d1, ok := ptywright.DialogOf(st)
	require.True(t, ok, "no metadata.dialog: %v", st.Metadata)
	require.Equal(t, "permission", d1.Kind)
	require.Equal(t, "shell", d1.Tool)
	require.Equal(t, `printf 'one\n' > first.txt`, d1.Command)
	require.Equal(t, d1.ID, st.Metadata["dialog_id"])
	require.Equal(t, 1, d1.SelectedIndex)
	require.Equal(t, ptywright.DialogOption{Index: 1, Label: "Yes, proceed", Key: "y"}, d1.Options[0])
	res, err := h.Send(ctx, "choose_option", json.RawMessage(`{"index":1,"label":"No"}`))
	require.ErrorIs(t, err, ptywright.ErrDialogMismatch, "a label the keys do not choose")
	require.Equal(t, ptywright.EffectNotSent, res.Receipt.Effect)
	require.Zero(t, res.Receipt.Bytes)

	codexSend(t, h, "approve", `{"dialog_id":"`+d1.ID+`","label":"Yes, proceed"}`)
	st, err = tuitest.EagerUntil(h, func(st ptywright.StateSnapshot) bool {
		d, ok := ptywright.DialogOf(st)
		return (ok && d.ID != d1.ID) || st.State == "completed_turn" || st.State == "error"
	}, 60*time.Second)
	require.NoError(t, err)
	d2, ok := ptywright.DialogOf(st)
	require.True(t, ok, "state %s (%s)", st.State, st.Evidence)
	require.Equal(t, `printf 'two\n' > second.txt`, d2.Command)

	res, err = h.Send(ctx, "approve", json.RawMessage(`{"dialog_id":"`+d1.ID+`"}`))
	require.ErrorIs(t, err, ptywright.ErrDialogMismatch)
	var dm *ptywright.DialogMismatchError
	require.ErrorAs(t, err, &dm)
	require.NotNil(t, dm.Dialog)
	require.Equal(t, d2.ID, dm.Dialog.ID)
	require.Equal(t, ptywright.EffectNotSent, res.Receipt.Effect)
	require.Zero(t, res.Receipt.Bytes)
	st, err = h.State(ctx)
	require.NoError(t, err)
	d, ok := ptywright.DialogOf(st)
	require.True(t, ok, "state %s (%s)", st.State, st.Evidence)
	require.Equal(t, d2.ID, d.ID, "the second approval is still up")
	_, err = os.Stat(filepath.Join(work, "second.txt"))
	require.ErrorIs(t, err, os.ErrNotExist, "the second command ran")

	codexSend(t, h, "deny", `{"dialog_id":"`+d2.ID+`"}`)
	st, err = tuitest.EagerUntil(h, tuitest.StateIs("ready", "completed_turn", "error"), 60*time.Second)
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(work, "second.txt"))
	require.ErrorIs(t, err, os.ErrNotExist, "the denied command ran")
	got, err = os.ReadFile(filepath.Join(work, "first.txt"))
	require.NoError(t, err)
	require.Equal(t, "one\n", string(got))
}

// TestCodexDaemonEndsWithTheHandle: without --no-daemon (what a caller
// gets who passes args of its own to adapter.start, replacing the default
// target's), Codex 0.169 starts its app-server daemon at start-up, copied
// under $CODEX_HOME/packages and detached with setsid: "codex app-server
// --listen unix:// ... --managed-daemon" and "codex app-server daemon
// pid-update-loop". The handle's close must end both.
func TestCodexDaemonEndsWithTheHandle(t *testing.T) {
	srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	h, work := startCodexAdapterArgs(t, srv, []string{"-a", "on-request"})
	home := filepath.Dir(work)

	st := codexWait(t, h, "wait_ready_matcher", "", 60*time.Second)
	require.Equal(t, "ready", st.State, "evidence %q", st.Evidence)
	// The daemon starts in the background: it may not be there yet when
	// the prompt is.
	ready := time.Now()
	var server, updater string
	deadline := time.Now().Add(60 * time.Second)
	for {
		left, ok := tuitest.ProcessesOf(home)
		if !ok {
			t.Skip("no /proc to find the daemon in")
		}
		for _, p := range left {
			switch {
			case strings.Contains(p, "/codex app-server --listen "):
				server = p
			case strings.Contains(p, "/codex app-server daemon pid-update-loop"):
				updater = p
			}
		}
		if server != "" && updater != "" {
			break
		}
		require.True(t, time.Now().Before(deadline), "Codex did not start its app-server daemon; processes of the run: %q", left)
		time.Sleep(50 * time.Millisecond)
	}
	daemons := []string{server, updater}
	t.Logf("daemon running %s after the prompt:\n\t%s", time.Since(ready).Round(time.Millisecond), strings.Join(daemons, "\n\t"))
	closeCodexRun(t, h, home)
}
