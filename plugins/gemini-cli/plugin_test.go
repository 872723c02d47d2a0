package geminicli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
)

// geminiFixtureText reads the capture NAME.txt.
func geminiFixtureText(tb testing.TB, name string) string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(geminiFixtureDir, name+".txt"))
	require.NoError(tb, err)
	return string(raw)
}

// geminiClassify classifies text as a live screen of cols columns.
func geminiClassify(tb testing.TB, ext ptywright.Extension, text string, cols int, title, lastIntent string) ptywright.StateSnapshot {
	tb.Helper()
	var exp geminiExpected
	if title != "" {
		exp.GivenTitle = &title
	}
	if lastIntent != "" {
		exp.GivenLastIntent = &lastIntent
	}
	st, err := ext.Classify(context.Background(), geminiFixtureContext(text, cols, exp))
	require.NoError(tb, err)
	require.NotNil(tb, st.Assessment)
	require.NoError(tb, st.Assessment.Validate())
	return st
}

// rl0 is the 1-based row of fixture name that starts with prefix.
func rl0(t *testing.T, name, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(geminiFixtureText(t, name), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("%s has no row starting %q", name, prefix)
	return 0
}

// geminiReplaceRows replaces rows (1-based) of a capture.
func geminiReplaceRows(text string, rows map[int]string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for row, line := range rows {
		lines[row-1] = line
	}
	return strings.Join(lines, "\n") + "\n"
}

func geminiAnomalyCodes(a *contract.SurfaceAssessment) []string {
	out := []string{}
	for _, an := range a.Anomalies {
		out = append(out, an.Code)
	}
	return out
}

// TestGeminiClassifyBeyondFixtures covers what a capture alone does not
// show: the title and last intent changing the verdict, and screens
// derived from captures.
func TestGeminiClassifyBeyondFixtures(t *testing.T) {
	completed := geminiFixtureText(t, "completed_turn_24x80")
	lines := strings.Split(completed, "\n")
	answer := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "✦ Here is the answer") {
			answer = i + 1
		}
	}
	require.Positive(t, answer)
	// The prompt echoed, nothing after it yet: the turn has started.
	echoed := geminiReplaceRows(completed, map[int]string{answer: ""})
	// The dying CLI's debug output over the composer after the restart.
	ready := geminiFixtureText(t, "ready_after_trust_24x80")
	rl := strings.Split(ready, "\n")
	composer := -1
	for i, l := range rl {
		if strings.HasPrefix(l, " >   Type your message") {
			composer = i + 1
		}
	}
	require.Positive(t, composer)
	garbled := geminiReplaceRows(ready, map[int]string{
		composer:     " > [DEBUG] [IDEConnectionUtils] Failed to read IDE connection directory: Error: ENOENT: no such file",
		composer + 1: " or directory, scandir '/tmp/gemini/ide'",
		composer + 2: "    at async Object.readdir (node:internal/fs/promises:950:18)              /model",
	})
	// The new instance's start-up output under the restart notice, before
	// its UI (the terminal not yet in raw mode).
	restarting := strings.TrimRight(geminiFixtureText(t, "trust_restarting_24x80"), "\n") +
		"\n[SessionSummary] No previous session needs summary generation\n"
	// A prompt sent while the CLI initializes is queued, not lost: the
	// turn is under way.
	queued := geminiReplaceRows(geminiFixtureText(t, "ready_24x80"), map[int]string{
		rl0(t, "ready_24x80", "⚠  Warning: True color"):     "ℹ Initializing... Prompts will be queued.",
		rl0(t, "ready_24x80", "⚠  Warning: True color") + 1: "",
	})
	// The prompt queue above the status row.
	inQueue := geminiReplaceRows(geminiFixtureText(t, "ready_after_trust_24x80"), map[int]string{
		rl0(t, "ready_after_trust_24x80", "   color enabled") + 1: "",
		rl0(t, "ready_after_trust_24x80", "   color enabled") + 2: "  Queued (press ↑ to edit):",
		rl0(t, "ready_after_trust_24x80", "   color enabled") + 3: "    What is the ANSWER?",
	})
	// Start-up output that overwrote a composer row, pushed up into the
	// history by the new instance's UI: no prompt was echoed.
	pushedUp := geminiReplaceRows(ready, map[int]string{
		rl0(t, "ready_after_trust_24x80", "4. Be specific"): " > [DEBUG] [IDEConnectionUtils] Failed to read IDE connection directory: Error: ENOENT",
	})
	tests := []struct {
		name, text, title, lastIntent string
		state                         string
		business                      contract.BusinessState
	}{
		{"start-up output pushed up into the history", pushedUp, "", "", "ready", contract.BusinessIdle},
		{"a queued prompt", inQueue, "", "prompt_submitted", "thinking", contract.BusinessWorking},
		{"a prompt queued while the CLI initializes", queued, "", "prompt_submitted", "thinking", contract.BusinessWorking},
		{"start-up output under the restart notice", restarting, "", "", "restarting", contract.BusinessWorking},
		{"a prompt with nothing after it is a running turn", echoed, "", "prompt_submitted", "thinking", contract.BusinessWorking},
		{"the title says working", completed, "✦  Working… (work)", "", "thinking", contract.BusinessWorking},
		{"cancelling", geminiFixtureText(t, "thinking_24x80"), "", "cancelling", "cancelling", contract.BusinessWorking},
		{"another process's output over the composer", garbled, "", "", "garbled", contract.BusinessUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := geminiClassify(t, geminiExtension(t), tt.text, 80, tt.title, tt.lastIntent)
			require.Equal(t, tt.state, st.State, "evidence %q", st.Evidence)
			require.Equal(t, tt.business, st.Assessment.BusinessState)
			require.Equal(t, tt.business == contract.BusinessIdle, st.Assessment.SubmitReady())
		})
	}
	// The old instance's live area left at the top of the screen by the
	// trust restart, start-up output over its composer, and the new
	// instance's confirmation dialog ending the screen (seen live by the
	// eager test): the dialog, not another process's output.
	t.Run("the old instance's live area above a dialog", func(t *testing.T) {
		stale := []string{"", strings.Repeat(" ", 104) + "? for shortcuts", strings.Repeat("─", 120), " Shift+Tab to accept edits", "",
			" > [SessionSummary] No session files found", ""}
		rows := append(stale, strings.Split(geminiFixtureText(t, "approval_shell_40x120"), "\n")[1:]...)
		st := geminiClassify(t, geminiExtension(t), strings.Join(rows[:40], "\n"), 120, "", "prompt_submitted")
		require.Equal(t, "waiting_for_permission", st.State, "evidence %q", st.Evidence)
		d, ok := ptywright.DialogOf(st)
		require.True(t, ok)
		require.Equal(t, `printf 'approved\n' > approved.txt`, d.Command)
	})
}

// TestGeminiKeysNotReadYet: a screen that looks ready while the CLI has
// not turned bracketed paste on (it does where it starts reading keys) is
// starting: keys sent then are lost.
func TestGeminiKeysNotReadYet(t *testing.T) {
	for _, name := range []string{"first_frame_24x80", "trust_24x80", "ready_after_trust_40x120"} {
		text := geminiFixtureText(t, name)
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		snap := ptywright.ScreenSnapshot{PlainText: strings.Join(lines, "\n"), Size: ptywright.Size{Rows: len(lines), Cols: geminiFixtureCols(t, name)}, Sequence: 1}
		ext := geminiExtension(t)
		st, x, err := ext.(ptywright.Explainer).ClassifyExplained(context.Background(), ptywright.NewClassifyContext(snap, "", 1000, nil))
		require.NoError(t, err)
		require.Equal(t, "starting", st.State, "%s: %s", name, st.Evidence)
		require.Equal(t, "gemini.keys_not_read", x.Rule)
		require.False(t, st.Assessment.SubmitReady())
		require.NotEqual(t, contract.BusinessAwaitingOperator, st.Assessment.BusinessState)
		require.NotEmpty(t, st.Metadata["pending_state"])
	}
}

// TestGeminiRestartAfterTrust: after approve_trust, a composer without the
// restart notice above it is the old instance's last frame (restarting);
// once bracketed paste went off (the old instance's exit), the next
// composer is the new instance's.
func TestGeminiRestartAfterTrust(t *testing.T) {
	ext := geminiExtension(t)
	geminiClassify(t, ext, geminiFixtureText(t, "trust_24x80"), 80, "", "")
	_, err := ext.Plan(context.Background(), "approve_trust", nil)
	require.NoError(t, err)
	st := geminiClassify(t, ext, geminiFixtureText(t, "ready_24x80"), 80, "", "")
	require.Equal(t, "restarting", st.State, st.Evidence)
	require.False(t, st.Assessment.SubmitReady())

	lines := strings.Split(strings.TrimSuffix(geminiFixtureText(t, "trust_restarting_24x80"), "\n"), "\n")
	off := ptywright.ScreenSnapshot{PlainText: strings.Join(lines, "\n"), Size: ptywright.Size{Rows: len(lines), Cols: 80}, Sequence: 2}
	st, err = ext.Classify(context.Background(), ptywright.NewClassifyContext(off, "", 0, nil))
	require.NoError(t, err)
	require.Equal(t, "restarting", st.State)
	st = geminiClassify(t, ext, geminiFixtureText(t, "ready_24x80"), 80, "", "")
	require.Equal(t, "ready", st.State, "the new instance's composer: %s", st.Evidence)
}

// TestGeminiVersionFromTheBanner: the banner's version is detected and
// remembered after it scrolls away; parser_override pins another.
func TestGeminiVersionFromTheBanner(t *testing.T) {
	ext := geminiExtension(t)
	st := geminiClassify(t, ext, geminiFixtureText(t, "ready_40x120"), 120, "", "")
	require.Equal(t, "0.61.0", st.Assessment.ParserMetadata.DetectedVersion)
	require.Equal(t, "detected", st.Assessment.ParserMetadata.SelectionSource)
	require.NotContains(t, geminiAnomalyCodes(st.Assessment), contract.AnomalyUnknownVersionFloorUsed)
	st = geminiClassify(t, ext, geminiFixtureText(t, "completed_turn_24x80"), 80, "", "")
	require.Equal(t, "0.61.0", st.Assessment.ParserMetadata.DetectedVersion, "remembered after the banner scrolled away")
	require.Equal(t, "remembered", st.Assessment.ParserMetadata.SelectionSource)

	_, err := ext.Plan(context.Background(), "parser_override", json.RawMessage(`{"version":"0.61.0"}`))
	require.NoError(t, err)
	st = geminiClassify(t, ext, geminiFixtureText(t, "completed_turn_24x80"), 80, "", "")
	require.Equal(t, "0.61.0", st.Assessment.ParserMetadata.RequestedVersion)
	require.Equal(t, "override", st.Assessment.ParserMetadata.SelectionSource)
	require.Equal(t, []string{contract.AnomalyPresetOverrideUsed}, geminiAnomalyCodes(st.Assessment))
	_, err = ext.Plan(context.Background(), "parser_override", json.RawMessage(`{"version":"0.60.0"}`))
	require.NoError(t, err)
	st = geminiClassify(t, ext, geminiFixtureText(t, "completed_turn_24x80"), 80, "", "")
	require.Equal(t, "0.60.0", st.Assessment.ParserMetadata.RequestedVersion)
	require.Contains(t, geminiAnomalyCodes(st.Assessment), contract.AnomalyPresetOverrideUsed)
	require.Contains(t, geminiAnomalyCodes(st.Assessment), contract.AnomalyUnknownVersionFloorUsed, "0.60.0 is not a known version")
	_, err = ext.Plan(context.Background(), "parser_override", json.RawMessage(`{}`))
	require.NoError(t, err)
	st = geminiClassify(t, ext, geminiFixtureText(t, "completed_turn_24x80"), 80, "", "")
	require.Empty(t, st.Assessment.ParserMetadata.RequestedVersion)
	_, err = ext.Plan(context.Background(), "parser_override", json.RawMessage(`{"version":"latest"}`))
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
}

// geminiPlan classifies fixture (when given) on a fresh instance, then
// plans intent.
func geminiPlan(t *testing.T, fixture, intent, params string) (ptywright.ActionPlan, error) {
	t.Helper()
	ext := geminiExtension(t)
	if fixture != "" {
		geminiClassify(t, ext, geminiFixtureText(t, fixture), geminiFixtureCols(t, fixture), "", "")
	}
	return ext.Plan(context.Background(), intent, json.RawMessage(params))
}

func TestGeminiIntents(t *testing.T) {
	enter := ptywright.Press(ptywright.KeyEnter)
	esc := ptywright.Press(ptywright.KeyEscape)
	str := func(s string) *string { return &s }
	tests := []struct {
		name, fixture, intent, params string
		actions                       []ptywright.Action
		lastIntent                    *string
		err                           string
	}{
		{"send_prompt pastes, then Enter", "ready_24x80", "send_prompt", `{"prompt":"hello"}`,
			[]ptywright.Action{ptywright.BracketedPaste("hello"), enter}, str("prompt_submitted"), ""},
		{"send_prompt into a draft is refused", "typing_24x80", "send_prompt", `{"prompt":"hello"}`, nil, nil, "the composer still holds text"},
		{"send_prompt needs a prompt", "ready_24x80", "send_prompt", `{}`, nil, nil, "params.prompt"},
		{"approve: Enter on the highlighted Allow once", "approval_shell_24x80", "approve", `{}`, []ptywright.Action{enter}, nil, ""},
		{"approve: the digit when the highlight moved", "approval_shell_option2_24x80", "approve", `{}`, []ptywright.Action{ptywright.Text("1")}, nil, ""},
		{"approve_always: Allow for this session", "approval_shell_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("2")}, nil, ""},
		{"approve on the trust dialog trusts", "trust_24x80", "approve", `{}`, []ptywright.Action{enter}, nil, ""},
		{"approve on the composer is refused", "ready_24x80", "approve", `{}`, nil, nil, "not possible in state ready"},
		{"deny: Esc", "approval_write_24x80", "deny", `{}`, []ptywright.Action{esc}, nil, ""},
		{"deny on the trust dialog: Don't trust", "trust_24x80", "deny", `{}`, []ptywright.Action{ptywright.Text("3")}, nil, ""},
		{"choose_option by label", "approval_write_24x80", "choose_option", `{"option":"external editor"}`, []ptywright.Action{ptywright.Text("3")}, nil, ""},
		{"choose_option by index", "loop_detected_24x80", "choose_option", `{"index":2}`, []ptywright.Action{ptywright.Text("2")}, nil, ""},
		{"choose_option off the list", "approval_shell_24x80", "choose_option", `{"index":7}`, nil, nil, "no option 7"},
		{"approve_trust", "trust_option2_24x80", "approve_trust", `{}`, []ptywright.Action{ptywright.Text("1")}, nil, ""},
		{"deny_trust", "trust_24x80", "deny_trust", `{}`, []ptywright.Action{ptywright.Text("3")}, nil, ""},
		{"cancel a running turn", "thinking_24x80", "cancel", `{}`, []ptywright.Action{esc}, str("cancelling"), ""},
		{"cancel when idle is refused", "completed_turn_24x80", "cancel", `{}`, nil, nil, "not possible in state completed_turn"},
		{"key by alias", "", "key", `{"key":"Shift-Tab"}`, []ptywright.Action{ptywright.Press(ptywright.KeyShiftTab)}, nil, ""},
		{"slash_command adds the slash", "ready_24x80", "slash_command", `{"command":"stats"}`,
			[]ptywright.Action{ptywright.BracketedPaste("/stats"), enter}, str("slash_command"), ""},
		{"exit: Ctrl+C twice", "completed_turn_24x80", "exit", `{}`,
			[]ptywright.Action{ptywright.Press(ptywright.Ctrl('c')), ptywright.Press(ptywright.Ctrl('c'))}, str(""), ""},
		{"exit from a dialog is refused", "approval_shell_24x80", "exit", `{}`, nil, nil, "not possible in state waiting_for_permission"},
		{"parser_override sends nothing", "", "parser_override", `{"version":"0.61.0"}`, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := geminiPlan(t, tt.fixture, tt.intent, tt.params)
			if tt.err != "" {
				require.Error(t, err)
				require.True(t, errors.Is(err, luahost.ErrRuntime) || errors.Is(err, ptywright.ErrInvalidParams), "%v", err)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.actions, plan.Actions)
			require.Equal(t, tt.lastIntent, plan.LastIntent)
		})
	}
}

// TestGeminiSendPromptPlan: the paste's Enter becomes a newline in the CLI,
// so the retry's Enter submits; the keys await a known composer; on a
// garbled screen the plan redraws it first.
func TestGeminiSendPromptPlan(t *testing.T) {
	plan, err := geminiPlan(t, "ready_24x80", "send_prompt", `{"prompt":"hello"}`)
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{ptywright.Press(ptywright.KeyEnter)}, plan.Retry)
	require.NotNil(t, plan.Await)
	require.ElementsMatch(t, []string{"ready", "completed_turn", "error", "garbled"}, plan.Await.States)
	require.NotNil(t, plan.Expect)
	require.NotNil(t, plan.Expect.Matcher)

	ext := geminiExtension(t)
	ready := geminiFixtureText(t, "ready_after_trust_24x80")
	garbled := strings.Replace(ready, " >   Type your message or @path/to/file", " > [DEBUG] [IDEConnectionUtils] Failed to read IDE connection directory", 1)
	st := geminiClassify(t, ext, garbled, 80, "", "")
	require.Equal(t, "garbled", st.State)
	plan, err = ext.Plan(context.Background(), "send_prompt", json.RawMessage(`{"prompt":"hello"}`))
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{ptywright.Press(ptywright.Ctrl('l')), ptywright.BracketedPaste("hello"), ptywright.Press(ptywright.KeyEnter)}, plan.Actions)
}

func TestGeminiDescribe(t *testing.T) {
	reg := tuitest.SharedPlugins(t)
	d, err := reg.Describe(context.Background(), "gemini-cli")
	require.NoError(t, err)
	require.Equal(t, "gemini-cli", d.Manifest.Name)
	names := func(es []luahost.DescribeEntry) []string {
		var out []string
		for _, e := range es {
			require.NotEmpty(t, e["description"], "%s has no description", e.Name())
			out = append(out, e.Name())
		}
		sort.Strings(out)
		return out
	}
	ext := geminiExtension(t)
	for _, intent := range names(d.Intents) {
		_, err := ext.Plan(context.Background(), intent, json.RawMessage(`{"prompt":"x","key":"x","command":"x","index":1}`))
		if err != nil {
			require.NotContains(t, err.Error(), "unknown intent", intent)
		}
	}
	intents := names(d.Intents)
	manifestIntents := append([]string{}, d.Manifest.Intents...)
	sort.Strings(manifestIntents)
	require.Equal(t, manifestIntents, intents, "the manifest declares what describe() lists")
	require.Subset(t, intents, []string{"send_prompt", "approve", "approve_always", "deny", "cancel", "choose_option", "approve_trust", "parser_override", "exit"})
	for _, m := range names(d.WaitMatchers) {
		_, err := ext.WaitMatcher(context.Background(), m, json.RawMessage(`{}`))
		require.NoError(t, err, m)
	}
	states := names(d.States)
	require.Subset(t, states, []string{"starting", "waiting_for_trust", "restarting", "ready", "thinking", "waiting_for_permission",
		"completed_turn", "error", "waiting_for_user_input", "local_ui_screen", "exited"})
	paths, err := filepath.Glob(filepath.Join(geminiFixtureDir, "*.expected.json"))
	require.NoError(t, err)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var exp geminiExpected
		require.NoError(t, json.Unmarshal(raw, &exp))
		require.Contains(t, states, exp.State, p)
	}
}

// TestGeminiProjection checks the projector on captures: the history
// stays, the CLI's chrome goes.
func TestGeminiProjection(t *testing.T) {
	tests := []struct {
		fixture  string
		contains []string
		excludes []string
	}{
		{"completed_turn_24x80", []string{" > What is the ANSWER?", "✦ Here is the answer: <<<ANSWER>>>42<<<END>>>"},
			[]string{"Type your message", "workspace (/directory)", "no sandbox", "? for shortcuts", "Shift+Tab to accept edits"}},
		{"ready_40x120", []string{"True color"}, []string{"Gemini CLI v0.61.0", "Authenticated with", "Tips for getting started", "Type your message"}},
		{"thinking_24x80", []string{"> Please be SLOW"}, []string{"esc to cancel", "Type your message"}},
		{"approval_shell_24x80", []string{"Allow execution of [Shell]?", "Allow once"}, []string{"Type your message"}},
		{"shortcuts_40x120", nil, []string{"Shortcuts See /help", "Type your message", "Tips for getting started"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ext := geminiExtension(t)
			dialog, id, ok, err := ext.(ptywright.Projector).Project(context.Background(), geminiFixtureContext(geminiFixtureText(t, tt.fixture), geminiFixtureCols(t, tt.fixture), geminiExpected{}))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "gemini-cli.v1", id)
			for _, s := range tt.contains {
				require.Contains(t, dialog, s)
			}
			for _, s := range tt.excludes {
				require.NotContains(t, dialog, s)
			}
			require.NotContains(t, dialog, "\n\n\n", "blank runs are collapsed")
		})
	}
}

// geminiShowScreen paints text on a real terminal of rows x cols.
func geminiShowScreen(t *testing.T, text string, rows, cols int) *ptywright.Session {
	t.Helper()
	path := filepath.Join(t.TempDir(), "screen.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.TrimRight(text, "\n")), 0o600))
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `cat "$0"; exec sleep 60`, path},
		Env:     map[string]string{"LANG": "C.UTF-8"},
		Size:    ptywright.Size{Rows: rows, Cols: cols},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestGeminiWaitMatchers runs the plugin's wait matchers against captures
// painted on a real terminal: they must fire on the screens they are for
// and not on the others (a dialog quoted in an answer included).
func TestGeminiWaitMatchers(t *testing.T) {
	tests := []struct {
		matcher string
		screen  string
		fires   bool
	}{
		{"wait_turn_matcher", "completed_turn_24x80", true},
		{"wait_turn_matcher", "completed_tool_40x120", true},
		{"wait_turn_matcher", "error_err401_24x80", true},
		{"wait_turn_matcher", "denied_tool_24x80", true},
		{"wait_turn_matcher", "approval_shell_24x80", true},
		{"wait_turn_matcher", "thinking_24x80", false},
		{"wait_turn_matcher", "streaming_40x120", false},
		{"wait_approval_matcher", "approval_shell_24x80", true},
		{"wait_approval_matcher", "approval_write_40x120", true},
		{"wait_approval_matcher", "quoted_dialog_24x80", false},
		{"wait_approval_matcher", "trust_24x80", false},
		{"wait_approval_matcher", "completed_turn_24x80", false},
		{"wait_ready_matcher", "ready_24x80", true},
		{"wait_ready_matcher", "completed_turn_40x120", true},
		{"wait_ready_matcher", "typing_24x80", false},
		{"wait_ready_matcher", "thinking_24x80", false},
		{"wait_ready_matcher", "trust_24x80", false},
	}
	for _, tt := range tests {
		t.Run(tt.matcher+"/"+tt.screen, func(t *testing.T) {
			t.Parallel()
			text := geminiFixtureText(t, tt.screen)
			rows := len(strings.Split(strings.TrimSuffix(text, "\n"), "\n"))
			s := geminiShowScreen(t, text, rows, geminiFixtureCols(t, tt.screen))
			want := strings.TrimRight(strings.Join(strings.Split(strings.TrimSuffix(text, "\n"), "\n"), "\n"), "\n")
			require.Eventually(t, func() bool { return s.Screen().PlainText() == want }, 10*time.Second, 10*time.Millisecond,
				"the terminal shows the capture")
			m, err := geminiExtension(t).WaitMatcher(context.Background(), tt.matcher, json.RawMessage(`{"completed_turn_stable_ms":100,"stable_ms":100}`))
			require.NoError(t, err)
			d := 5 * time.Second
			if !tt.fires {
				d = time.Second // long past the matchers' stability windows
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			_, err = s.Wait(ctx, m)
			if tt.fires {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ptywright.ErrTimeout)
			}
		})
	}
}
