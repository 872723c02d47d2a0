package claudecode_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/fakeanthropic"
	"ptywright/internal/tuitest"
	"ptywright/plugins"
	"ptywright/ptywrighttest"
)

// claudeE2E is one real Claude Code driven through the claude-code plugin.
type claudeE2E struct {
	t   *testing.T
	h   *ptywright.ExtensionHandle
	srv *fakeanthropic.Server
}

func (c *claudeE2E) params(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	require.NoError(c.t, err)
	return raw
}

// fail reports what the adapter saw.
func (c *claudeE2E) fail(format string, args ...any) {
	c.t.Helper()
	in, err := c.h.Inspect(context.Background(), nil)
	screen := "(no screen: " + errString(err) + ")"
	if err == nil {
		screen = in.PlainText
	}
	var reqs []string
	for _, r := range c.srv.MessagesRequests() {
		reqs = append(reqs, r.String())
	}
	c.t.Fatalf(format+"\n--- screen:\n%s\n--- state: %+v\n--- messages requests:\n%s",
		append(args, screen, in.State, strings.Join(reqs, "\n"))...)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// send sends an intent and requires the program to have taken it: an
// eager client acts on a state the moment it appears, so the receipt is
// what tells it the keys were not lost.
func (c *claudeE2E) send(intent string, params any) ptywright.StateSnapshot {
	c.t.Helper()
	res, err := c.h.Send(context.Background(), intent, c.params(params))
	if err != nil {
		c.fail("send %s: %v", intent, err)
	}
	rc := res.Receipt
	if rc.Effect != ptywright.EffectConfirmed {
		c.fail("send %s: the program did not take it: %+v", intent, rc)
	}
	c.t.Logf("%s to %s: %s, %d attempt(s), keys held %d ms, confirmed after %d ms", intent, rc.StateBefore, rc.Effect, rc.Attempts, rc.HeldMs, rc.ElapsedMs)
	return res.State
}

// until returns the first state ok accepts, classifying every change as
// an eager client does (see eagerUntil).
func (c *claudeE2E) until(what string, ok func(ptywright.StateSnapshot) bool) ptywright.StateSnapshot {
	c.t.Helper()
	st, err := tuitest.EagerUntil(c.h, ok, 60*time.Second)
	if err != nil {
		c.fail("until %s: %v", what, err)
	}
	return st
}

func (c *claudeE2E) wait(intent string) ptywright.StateSnapshot {
	c.t.Helper()
	return c.waitParams(intent, nil)
}

func (c *claudeE2E) waitParams(intent string, params any) ptywright.StateSnapshot {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, _, err := c.h.Wait(ctx, intent, c.params(params))
	if err != nil {
		c.fail("wait %s: %v", intent, err)
	}
	return st
}

func (c *claudeE2E) expect(st ptywright.StateSnapshot, state string) {
	c.t.Helper()
	if st.State != state {
		c.fail("state %q, want %q (evidence %q)", st.State, state, st.Evidence)
	}
}

func metaMap(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// TestClaudeCodeEndToEnd drives the real Claude Code CLI, on a fresh HOME
// and against the fake Messages API, through the claude-code plugin only:
// start-up → prompt → permission approve → permission deny → cancel.
//
// Where Claude Code 2.1.330 differs from the spec the test follows the
// program (testdata/fixtures/claude_code/CAPTURES.md): the start-up pages
// come as theme → API key → security notes → trust; a denied permission
// ends the turn at the prompt ("Interrupted"), with no model reply, so its
// end state is ready, not completed_turn.
func TestClaudeCodeEndToEnd(t *testing.T) {
	bin := tuitest.ClaudeBinary(t)
	start := time.Now()

	const (
		helloAnswer  = "Hello from the fake model."
		approvedDone = "Done: approved.txt written."
		overloadDone = "Answered after the overload."
		// A permission dialog as Claude Code draws it, in the model's text.
		quotedDialog = "Claude Code would show you this:\n\nBash command\n\n  rm -rf build\n  Remove the build directory\n\n" +
			"Do you want to proceed?\n\u276f 1. Yes\n  2. Yes, and don't ask again for rm commands in this project\n  3. No\n\n" +
			"Esc to cancel \u00b7 Tab to amend\n\nThat is the whole dialog."
	)
	var slow strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&slow, "Slow line %02d of the cancelled answer.\n", i)
	}
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		// The first token waits, so the spinner has time to show.
		{When: fakeanthropic.Match{Prompt: "say hello"}, Reply: fakeanthropic.Reply{Text: helloAnswer, StartDelay: 1500 * time.Millisecond}},
		{When: fakeanthropic.Match{Prompt: "approve a file"}, Reply: fakeanthropic.Reply{Text: "I'll write approved.txt.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo approved > approved.txt", "Write approved.txt")}}},
		{When: fakeanthropic.Match{Prompt: "deny a file"}, Reply: fakeanthropic.Reply{Text: "I'll write denied.txt.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo denied > denied.txt", "Write denied.txt")}}},
		// Two dialogs, one after the other: approving the first brings the
		// second.
		{When: fakeanthropic.Match{Prompt: "two dialogs"}, Reply: fakeanthropic.Reply{Text: "First a marker.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo FIRSTDLG | tee first.txt", "Write first.txt")}}},
		{When: fakeanthropic.Match{ToolResult: "Bash", ResultContains: "FIRSTDLG"}, Reply: fakeanthropic.Reply{Text: "Then the file.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo second > second.txt", "Write second.txt")}}},
		// What the policy decides: touch heldout_* is allowed, rm * denied.
		{When: fakeanthropic.Match{Prompt: "policy touch"}, Reply: fakeanthropic.Reply{Text: "Touching it.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("touch heldout_1.txt", "Create heldout_1.txt")}}},
		{When: fakeanthropic.Match{Prompt: "policy rm"}, Reply: fakeanthropic.Reply{Text: "Removing it.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("rm heldout_1.txt", "Remove heldout_1.txt")}}},
		{When: fakeanthropic.Match{ToolResult: "Bash"}, Reply: fakeanthropic.Reply{Text: approvedDone}},
		{When: fakeanthropic.Match{Prompt: "stream slowly"}, Reply: fakeanthropic.Reply{Text: slow.String(), ChunkRunes: 8, Delay: 100 * time.Millisecond}},
		// Two 529s, then the answer: Claude Code retries.
		{When: fakeanthropic.Match{Prompt: "overloaded twice"}, Reply: fakeanthropic.Reply{Error: &fakeanthropic.Overloaded}, Times: 2},
		{When: fakeanthropic.Match{Prompt: "overloaded twice"}, Reply: fakeanthropic.Reply{Text: overloadDone}},
		{When: fakeanthropic.Match{Prompt: "quote a dialog"}, Reply: fakeanthropic.Reply{Text: quotedDialog}},
	})

	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	ext, err := plugins.NewExtension("claude-code")
	require.NoError(t, err)

	home, work := t.TempDir(), t.TempDir()
	env := claudeEnv(srv, home)
	s, err := ptywright.Start(ptywright.Options{
		Program: bin,
		Args:    []string{"--permission-mode", "default"},
		Dir:     work,
		Env:     env,
		Size:    ptywright.Size{Rows: 40, Cols: 120},
	})
	require.NoError(t, err)
	policy, audit, auditPath := tuitest.HeldoutPolicy(t, "claude-code")
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Predicates: plugins, Audit: audit, Policy: policy})
	t.Cleanup(func() { _ = h.Close() })
	c := &claudeE2E{t: t, h: h, srv: srv}

	// Start-up, in whatever order the program shows its pages, each
	// answered the moment it is first classified.
	var seen []string
	for ready := false; !ready; {
		if len(seen) > 10 {
			c.fail("start-up did not reach the prompt; saw %v", seen)
		}
		st := c.until("a start-up page or the prompt", func(st ptywright.StateSnapshot) bool {
			page, _ := st.Metadata["onboarding"].(string)
			return st.State == "ready" || st.State == "waiting_for_trust" ||
				(st.State == "starting" && (page == "theme" || page == "security_notes" || page == "api_key"))
		})
		page, _ := st.Metadata["onboarding"].(string)
		seen = append(seen, strings.TrimSuffix(st.State+"/"+page, "/"))
		switch {
		case st.State == "ready":
			ready = true
		case st.State == "starting" && (page == "theme" || page == "security_notes"):
			c.send("dismiss_welcome", nil)
		case st.State == "starting" && page == "api_key":
			c.send("choose_option", map[string]string{"label": "Yes"})
		case st.State == "waiting_for_trust":
			c.send("approve_trust", nil)
		default:
			c.fail("unexpected state %q during start-up (seen %v)", st.State, seen)
		}
	}
	t.Logf("start-up pages: %v (%s)", seen, time.Since(start).Round(time.Millisecond))
	require.Contains(t, seen, "starting/api_key")
	require.Contains(t, seen, "waiting_for_trust")

	t.Run("prompt, thinking, completed turn", func(t *testing.T) {
		c.t = t
		t0 := time.Now()
		c.send("send_prompt", map[string]string{"prompt": "say hello please"})
		c.expect(c.wait("wait_busy_matcher"), "thinking")
		st := c.wait("wait_turn_matcher")
		wall := time.Since(t0)
		c.expect(st, "completed_turn")
		require.Equal(t, helloAnswer, metaMap(st.Metadata, "turn")["text"])
		require.Equal(t, "manual", metaMap(st.Metadata, "status")["permission_mode"])
		t.Logf("turn wall time (send_prompt → completed_turn, fake model with a 1.5 s first-token delay): %s", wall.Round(time.Millisecond))
	})

	t.Run("permission approved", func(t *testing.T) {
		c.t = t
		c.send("send_prompt", map[string]string{"prompt": "please approve a file"})
		st := c.until("the permission dialog", tuitest.StateIs("waiting_for_permission", "completed_turn", "error"))
		c.expect(st, "waiting_for_permission")
		perm := metaMap(st.Metadata, "permission")
		require.Equal(t, "Bash", perm["tool"])
		require.Equal(t, "echo approved > approved.txt", perm["summary"])
		require.NotEmpty(t, st.Metadata["dialog_id"])

		c.send("approve", nil)
		st = c.wait("wait_turn_matcher")
		c.expect(st, "completed_turn")
		require.Equal(t, approvedDone, metaMap(st.Metadata, "turn")["text"])
		b, err := os.ReadFile(filepath.Join(work, "approved.txt"))
		require.NoError(t, err)
		require.Equal(t, "approved\n", string(b))
	})

	t.Run("permission denied", func(t *testing.T) {
		c.t = t
		c.send("send_prompt", map[string]string{"prompt": "please deny a file"})
		st := c.until("the permission dialog", tuitest.StateIs("waiting_for_permission", "completed_turn", "error"))
		c.expect(st, "waiting_for_permission")
		perm := metaMap(st.Metadata, "permission")
		require.Equal(t, "Bash", perm["tool"])
		require.Equal(t, "echo denied > denied.txt", perm["summary"])

		c.send("deny", nil)
		st = c.wait("wait_turn_matcher")
		// Claude Code 2.1.330 ends the turn on a denial: no model reply.
		c.expect(st, "ready")
		require.Equal(t, true, st.Metadata["interrupted"])
		_, err := os.Stat(filepath.Join(work, "denied.txt"))
		require.True(t, errors.Is(err, os.ErrNotExist), "denied.txt exists: %v", err)
	})

	t.Run("cancel during a slow stream", func(t *testing.T) {
		c.t = t
		c.send("send_prompt", map[string]string{"prompt": "stream slowly please"})
		c.expect(c.wait("wait_busy_matcher"), "thinking")
		// Cancel once the answer is streaming (Escape before its first
		// line would put the prompt back in the input row instead).
		st := c.waitParams("wait_text_matcher", map[string]string{"text": "Slow line 02"})
		c.expect(st, "thinking")
		require.Contains(t, metaMap(st.Metadata, "turn")["text"], "Slow line 01 of the cancelled answer.")
		st = c.send("cancel", nil)
		c.expect(st, "cancelling")
		require.Equal(t, "cancelling", *st.LastIntent)
		st = c.wait("wait_cancel_settled_matcher")
		c.expect(st, "ready")
		require.Equal(t, true, st.Metadata["interrupted"])
		var dropped bool
		for _, r := range srv.MessagesRequests() {
			if r.Messages != nil && strings.Contains(r.Messages.LastUserText(), "stream slowly") && r.Disconnected {
				dropped = true
			}
		}
		require.True(t, dropped, "the slow stream was not dropped by the client")
	})

	t.Run("a turn through two 529s", func(t *testing.T) {
		c.t = t
		c.send("send_prompt", map[string]string{"prompt": "overloaded twice please"})
		st := c.wait("wait_turn_matcher")
		c.expect(st, "completed_turn")
		require.Equal(t, overloadDone, metaMap(st.Metadata, "turn")["text"])
		n := 0
		for _, r := range srv.MessagesRequests() {
			if r.Messages != nil && strings.Contains(r.Messages.LastUserText(), "overloaded twice") {
				n++
			}
		}
		require.Equal(t, 3, n, "two 529s and the answer")
	})

	t.Run("an answer to a dialog that changed is refused", func(t *testing.T) {
		c.t = t
		ctx := context.Background()
		c.send("send_prompt", map[string]string{"prompt": "two dialogs please"})
		st := c.until("the first dialog", tuitest.StateIs("waiting_for_permission", "completed_turn", "error"))
		c.expect(st, "waiting_for_permission")
		d1, ok := ptywright.DialogOf(st)
		require.True(t, ok, "no metadata.dialog: %v", st.Metadata)
		require.Equal(t, "permission", d1.Kind)
		require.Equal(t, "shell", d1.Tool)
		require.Equal(t, "Bash", d1.ToolName)
		require.Equal(t, "echo FIRSTDLG | tee first.txt", d1.Command)
		require.Equal(t, d1.ID, st.Metadata["dialog_id"])
		require.Equal(t, 1, d1.SelectedIndex)
		require.Equal(t, "Yes", d1.Options[0].Label)

		// An option the keys would not choose: refused, nothing pressed.
		res, err := h.Send(ctx, "choose_option", c.params(map[string]any{"index": 1, "label": "No"}))
		require.ErrorIs(t, err, ptywright.ErrDialogMismatch)
		require.Equal(t, ptywright.EffectNotSent, res.Receipt.Effect)
		require.Zero(t, res.Receipt.Bytes)

		c.send("approve", map[string]string{"dialog_id": d1.ID, "label": "Yes"})
		st = c.until("the second dialog", func(st ptywright.StateSnapshot) bool {
			d, ok := ptywright.DialogOf(st)
			return (ok && d.ID != d1.ID) || st.State == "completed_turn" || st.State == "error" || st.State == "ready"
		})
		d2, ok := ptywright.DialogOf(st)
		require.True(t, ok, "state %s (%s)", st.State, st.Evidence)
		require.Equal(t, "echo second > second.txt", d2.Command)

		// The client read the first dialog; at the moment of the key the
		// second is on screen: refused, with the second in the error, and
		// nothing pressed.
		res, err = h.Send(ptywright.WithDecider(ctx, "eager client"), "approve", c.params(map[string]string{"dialog_id": d1.ID}))
		require.ErrorIs(t, err, ptywright.ErrDialogMismatch)
		var dm *ptywright.DialogMismatchError
		require.ErrorAs(t, err, &dm)
		require.NotNil(t, dm.Dialog)
		require.Equal(t, d2.ID, dm.Dialog.ID)
		require.Equal(t, "waiting_for_permission", dm.State)
		require.Equal(t, ptywright.EffectNotSent, res.Receipt.Effect)
		require.Zero(t, res.Receipt.Bytes)
		st, err = h.State(ctx)
		require.NoError(t, err)
		d, ok := ptywright.DialogOf(st)
		require.True(t, ok, "state %s (%s)", st.State, st.Evidence)
		require.Equal(t, d2.ID, d.ID, "the second dialog is still up")
		_, err = os.Stat(filepath.Join(work, "second.txt"))
		require.True(t, errors.Is(err, os.ErrNotExist), "second.txt exists: %v", err)

		// Answering the dialog that is there works.
		c.send("deny", map[string]string{"dialog_id": d2.ID})
		st = c.wait("wait_turn_matcher")
		c.expect(st, "ready")
		_, err = os.Stat(filepath.Join(work, "second.txt"))
		require.True(t, errors.Is(err, os.ErrNotExist), "second.txt exists: %v", err)

		// The audit log has one line for each answer, refused ones
		// included, in order, with the dialog on screen at the key.
		var got []string
		for _, r := range ptywrighttest.ReadAudit(t, auditPath) {
			if r.DialogID == d1.ID || r.DialogID == d2.ID {
				require.Equal(t, "claude-code", r.Plugin)
				require.Equal(t, "permission", r.DialogKind)
				require.Equal(t, "shell", r.Tool)
				require.Equal(t, "Bash", r.ToolName)
				got = append(got, fmt.Sprintf("%s %s %q %d %q %s %s", r.Intent, r.DialogID, r.Command, r.Option, r.OptionLabel, r.DecidedBy, r.Effect))
			}
		}
		require.Equal(t, []string{
			fmt.Sprintf(`choose_option %s "echo FIRSTDLG | tee first.txt" 1 "Yes" caller not_sent`, d1.ID),
			fmt.Sprintf(`approve %s "echo FIRSTDLG | tee first.txt" 1 "Yes" caller confirmed`, d1.ID),
			fmt.Sprintf(`approve %s "echo second > second.txt" 1 "Yes" eager client not_sent`, d2.ID),
			fmt.Sprintf(`deny %s "echo second > second.txt" 4 "No" caller confirmed`, d2.ID),
		}, got)
	})

	t.Run("a policy allows touch heldout_* and denies rm *", func(t *testing.T) {
		c.t = t
		heldout := filepath.Join(work, "heldout_1.txt")
		// The client only waits: the policy answers the dialog meanwhile.
		// wait_turn_matcher would stop at the dialog, which the policy
		// answers a moment later: wait past it.
		c.send("send_prompt", map[string]string{"prompt": "policy touch please"})
		st := c.until("the allowed turn's end", tuitest.StateIs("completed_turn", "error"))
		c.expect(st, "completed_turn")
		require.Equal(t, approvedDone, metaMap(st.Metadata, "turn")["text"])
		_, err := os.Stat(heldout)
		require.NoError(t, err, "the allowed command did not run")

		c.send("send_prompt", map[string]string{"prompt": "policy rm please"})
		st = c.until("the denied turn's end", func(st ptywright.StateSnapshot) bool {
			return st.State == "completed_turn" || st.State == "error" || (st.State == "ready" && st.Metadata["interrupted"] == true)
		})
		c.expect(st, "ready")
		require.Equal(t, true, st.Metadata["interrupted"], "the denial ends the turn")
		_, err = os.Stat(heldout)
		require.NoError(t, err, "the denied command ran")

		got := tuitest.AuditByRule(t, auditPath, 2, 10*time.Second)
		require.Equal(t, []string{
			`approve "touch heldout_1.txt" rule allow-heldout "Yes" confirmed`,
			`deny "rm heldout_1.txt" rule deny-rm "No" confirmed`,
		}, got)
	})

	t.Run("an answer quoting a dialog", func(t *testing.T) {
		c.t = t
		c.send("send_prompt", map[string]string{"prompt": "quote a dialog please"})
		st := c.wait("wait_turn_matcher")
		c.expect(st, "completed_turn")
		require.Contains(t, metaMap(st.Metadata, "turn")["text"], "Do you want to proceed?")
		// For 2 s, every screen change is classified, as an eager
		// auto-approver would: none may read as a dialog.
		st, err := tuitest.EagerUntil(h, func(st ptywright.StateSnapshot) bool {
			return st.Assessment != nil && st.Assessment.BusinessState == contract.BusinessAwaitingOperator
		}, 2*time.Second)
		require.Error(t, err, "a quoted dialog read as a live one: %s (%s)", st.State, st.Evidence)
		c.expect(st, "completed_turn")
		// The policy's deny-rm matches the quoted "rm -rf build": it was
		// never answered.
		for _, r := range ptywrighttest.ReadAudit(t, auditPath) {
			require.NotContains(t, r.Command, "rm -rf build", "the policy answered a quoted dialog: %+v", r)
		}
	})

	t.Logf("end-to-end wall time: %s", time.Since(start).Round(time.Millisecond))
}

// claudeEnv is the environment of a Claude Code run against srv in home.
func claudeEnv(srv *fakeanthropic.Server, home string) map[string]string {
	env := map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"TERM":                "xterm-256color",
		"LANG":                "C.UTF-8",
		"DISABLE_AUTOUPDATER": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	// Claude Code may act differently under CI or inside another Claude
	// Code; the child gets neither (an empty value is unset for Node).
	for _, name := range []string{"CI", "CLAUDECODE", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL"} {
		if os.Getenv(name) != "" {
			env[name] = ""
		}
	}
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// seedOnboardedHome writes a ~/.claude.json with onboarding done and the
// fake API key approved, but the project not trusted: Claude Code opens
// at the workspace-trust dialog.
func seedOnboardedHome(t *testing.T, home string) {
	t.Helper()
	seed, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  "2.1.330",
		"theme":                  "dark",
		"customApiKeyResponses": map[string]any{
			"approved": []string{fakeanthropic.TestAPIKey[len(fakeanthropic.TestAPIKey)-20:]}, "rejected": []string{}},
		"hasSeenAutoDefaultNotice": true,
		"lastReleaseNotesSeen":     "2.1.330",
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".claude.json"), seed, 0o600))
}

// TestClaudeCodeTrustEager starts Claude Code 20 times on an onboarded HOME
// and answers the workspace-trust dialog the moment it is first
// classified, as an eager agent does: before input readiness, 3 runs in 4
// lost the keys (and the next Enter then picked "No, exit"). Every intent
// must be taken, and every run must reach the prompt.
func TestClaudeCodeTrustEager(t *testing.T) {
	bin := tuitest.ClaudeBinary(t)
	srv := fakeanthropic.New(t, nil)
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	const runs = 20
	var held []int64
	retried := 0
	for i := range runs {
		home, work := t.TempDir(), t.TempDir()
		seedOnboardedHome(t, home)
		ext, err := plugins.NewExtension("claude-code")
		require.NoError(t, err)
		s, err := ptywright.Start(ptywright.Options{Program: bin, Dir: work, Env: claudeEnv(srv, home), Size: ptywright.Size{Rows: 30, Cols: 100}})
		require.NoError(t, err)
		h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Predicates: plugins})
		c := &claudeE2E{t: t, h: h, srv: srv}
		c.until("the trust dialog", tuitest.StateIs("waiting_for_trust", "ready"))
		st := c.until("the trust dialog", tuitest.StateIs("waiting_for_trust"))
		res, err := h.Send(context.Background(), "approve_trust", nil)
		require.NoError(t, err)
		if res.Receipt.Effect != ptywright.EffectConfirmed {
			c.fail("run %d: approve_trust on the dialog's first frame (sequence %d) was lost: %+v", i, st.Sequence, res.Receipt)
		}
		held = append(held, res.Receipt.HeldMs)
		if res.Receipt.Attempts > 1 {
			retried++
		}
		c.until("the prompt", tuitest.StateIs("ready"))
		require.NoError(t, h.Close())
	}
	slices.Sort(held)
	t.Logf("%d runs, 0 lost intents (%d needed a second attempt); keys held for readiness: min %d ms, median %d ms, max %d ms", runs, retried, held[0], held[runs/2], held[runs-1])
}
