package codex_test

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
	"ptywright/plugins"
)

// codexFixtureText reads the capture NAME.txt.
func codexFixtureText(tb testing.TB, name string) string {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(codexFixtureDir, name+".txt"))
	require.NoError(tb, err)
	return string(raw)
}

// codexClassify classifies text (a fixture's, or one derived from it) as
// a live 80-column screen would be.
func codexClassify(tb testing.TB, ext ptywright.Extension, text string, title, lastIntent string) ptywright.StateSnapshot {
	tb.Helper()
	var exp codexExpected
	if title != "" {
		exp.GivenTitle = &title
	}
	if lastIntent != "" {
		exp.GivenLastIntent = &lastIntent
	}
	st, err := ext.Classify(context.Background(), codexFixtureContext(text, 80, exp))
	require.NoError(tb, err)
	require.NotNil(tb, st.Assessment)
	require.NoError(tb, st.Assessment.Validate())
	return st
}

// codexReplaceRows replaces rows (1-based) of a capture.
func codexReplaceRows(text string, rows map[int]string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for row, line := range rows {
		lines[row-1] = line
	}
	return strings.Join(lines, "\n") + "\n"
}

// codexSecondTurn is completed_turn_24x80 after a second prompt: the first
// turn's "Worked for" is still on screen while the second one runs.
func codexSecondTurn(tb testing.TB) string {
	return codexReplaceRows(codexFixtureText(tb, "completed_turn_24x80"), map[int]string{
		14: "› What is the ANSWER again?",
		17: "• Working (0s • esc to interrupt)",
	})
}

func codexAnomalyCodes(a *contract.SurfaceAssessment) []string {
	out := []string{}
	for _, an := range a.Anomalies {
		out = append(out, an.Code)
	}
	return out
}

// TestCodexClassifyBeyondFixtures covers what a capture alone does not
// show: the title and last intent changing the verdict, screens derived
// from captures, and the version the banner reports.
func TestCodexClassifyBeyondFixtures(t *testing.T) {
	streamingBare := codexReplaceRows(codexFixtureText(t, "streaming_24x80"), map[int]string{16: "", 17: "", 18: ""})
	tests := []struct {
		name       string
		text       string
		title      string
		lastIntent string
		state      string
		evidence   string
		business   contract.BusinessState
		uiContext  contract.UIContext // "" skips the check
	}{
		{"streaming without title or queue: no end marker after the prompt", streamingBare, "", "", "thinking", "turn running", contract.BusinessWorking, ""},
		{"streaming with an idle title: the open turn wins", streamingBare, "Fake task | work", "", "thinking", "turn running", contract.BusinessWorking, ""},
		// The title also spins while an MCP server starts, on a finished
		// turn that takes prompts (mcp_completed_while_starting): the
		// spinner alone is no running turn.
		{"finished turn with the busy spinner in the title", codexFixtureText(t, "completed_turn_24x80"), "⠋ Fake task | work", "", "completed_turn", "Worked for", contract.BusinessIdle, ""},
		{"completed turn without a title", codexFixtureText(t, "completed_turn_24x80"), "", "prompt_submitted", "completed_turn", "Worked for", contract.BusinessIdle, ""},
		{"second turn running below the first one's Worked for", codexSecondTurn(t), "", "prompt_submitted", "thinking", "Working (0s", contract.BusinessWorking, ""},
		{"working after cancel", codexFixtureText(t, "working_24x80"), "⠋ Fake task | work", "cancelling", "cancelling", "Working (1s", contract.BusinessWorking, ""},
		{"interrupted after cancel is ready again", codexFixtureText(t, "interrupted_24x80"), "Fake task | work", "cancelling", "ready", "composer", contract.BusinessIdle, ""},
		{"approval announced only in the title", "\n  Some dialog this plugin does not know\n\n  y/n\n", "[ ! ] Action Required | Fake task | work", "", "waiting_for_permission", "Action Required", contract.BusinessAwaitingOperator, ""},
		{"blank screen before the first paint", "\n\n\n", "", "", "starting", "blank screen", contract.BusinessUnknown, ""},
		{"unknown output", "npm ERR! something else\n", "", "", "starting", "nothing recognised: npm ERR!", contract.BusinessUnknown, ""},
		{"a prompt starting with a path is no slash command", codexReplaceRows(codexFixtureText(t, "typing_24x80"), map[int]string{22: "› /tmp/notes.txt summarise this"}),
			"work", "", "ready", "composer has text", contract.BusinessIdle, "normal_prompt"},
		{"a whole /command without its popup", codexReplaceRows(codexFixtureText(t, "typing_24x80"), map[int]string{22: "› /status"}),
			"work", "", "ready", "slash command", contract.BusinessIdle, "slash_command"},
		{"the prompt back after a slash command", codexFixtureText(t, "status_24x80"), "work", "slash_command", "ready", "composer idle", contract.BusinessIdle, "normal_prompt"},
		{"a configuration error Codex exits with", "Error loading configuration: approval_policy = \"untrusted\" is no longer supported; remove this setting\n",
			"", "", "error", "configuration error", contract.BusinessUnknown, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := codexClassify(t, codexExtension(t), tt.text, tt.title, tt.lastIntent)
			require.Equal(t, tt.state, st.State, "evidence %q", st.Evidence)
			require.Contains(t, st.Evidence, tt.evidence)
			require.Equal(t, tt.business, st.Assessment.BusinessState)
			if tt.uiContext != "" {
				require.Equal(t, tt.uiContext, st.Assessment.UIContext)
			}
			if tt.business == contract.BusinessUnknown {
				require.Contains(t, []contract.Availability{contract.AvailabilityUnknown, contract.AvailabilityDisconnected}, st.Assessment.Availability)
				require.Equal(t, contract.InputClosed, st.Assessment.InputMode)
			}
		})
	}
}

func TestCodexVersionFromTheBanner(t *testing.T) {
	t.Run("a version the preset does not know uses the floor", func(t *testing.T) {
		text := strings.Replace(codexFixtureText(t, "ready_24x80"), "(v0.169.0)", "(v0.170.2)", 1)
		st := codexClassify(t, codexExtension(t), text, "work", "")
		require.Equal(t, "ready", st.State)
		require.Equal(t, "0.170.2", st.Assessment.ParserMetadata.DetectedVersion)
		require.Equal(t, []string{contract.AnomalyUnknownVersionFloorUsed}, codexAnomalyCodes(st.Assessment))
		require.Contains(t, st.Assessment.Anomalies[0].Message, "0.170.2")
	})
	t.Run("the version stays known once the banner scrolls away", func(t *testing.T) {
		ext := codexExtension(t)
		codexClassify(t, ext, codexFixtureText(t, "ready_24x80"), "work", "")
		st := codexClassify(t, ext, codexFixtureText(t, "approval_exec_24x80"), "[ . ] Action Required | Fake task | work", "")
		require.Equal(t, "waiting_for_permission", st.State)
		require.NotContains(t, codexFixtureText(t, "approval_exec_24x80"), "OpenAI Codex (v")
		require.Equal(t, "0.169.0", st.Assessment.ParserMetadata.DetectedVersion)
		require.Empty(t, st.Assessment.Anomalies)
	})
}

// codexPlan classifies fixture (when not "") on a fresh instance, as the
// handle does after every step, then plans intent.
func codexPlan(t *testing.T, fixture, intent, params string) (ptywright.ActionPlan, error) {
	t.Helper()
	ext := codexExtension(t)
	if fixture != "" {
		codexClassify(t, ext, codexFixtureText(t, fixture), "", "")
	}
	return ext.Plan(context.Background(), intent, json.RawMessage(params))
}

func TestCodexIntents(t *testing.T) {
	enter, esc := ptywright.Press(ptywright.KeyEnter), ptywright.Press(ptywright.KeyEscape)
	up, down := ptywright.Press(ptywright.KeyUp), ptywright.Press(ptywright.KeyDown)
	str := func(s string) *string { return &s }
	tests := []struct {
		name, fixture, intent, params string
		actions                       []ptywright.Action
		lastIntent                    *string
		err                           string
	}{
		{"send_prompt pastes then presses Enter", "ready_24x80", "send_prompt", `{"prompt":"What is the ANSWER?"}`,
			[]ptywright.Action{ptywright.BracketedPaste("What is the ANSWER?"), enter}, str("prompt_submitted"), ""},
		{"send_prompt needs a prompt", "ready_24x80", "send_prompt", `{}`, nil, nil, "send_prompt: params.prompt"},
		{"steer", "working_24x80", "steer", `{"prompt":"faster"}`, []ptywright.Action{ptywright.BracketedPaste("faster"), enter}, nil, ""},
		{"queue", "working_24x80", "queue", `{"prompt":"then this"}`, []ptywright.Action{ptywright.BracketedPaste("then this"), ptywright.Press(ptywright.KeyTab)}, nil, ""},
		{"approve an approval dialog with y", "approval_exec_24x80", "approve", `{}`, []ptywright.Action{ptywright.Text("y")}, nil, ""},
		{"approve the trust prompt with Enter", "trust_24x80", "approve", `{}`, []ptywright.Action{enter}, nil, ""},
		{"approve without a dialog is refused", "ready_24x80", "approve", `{}`, nil, nil, "approve: not possible in state ready"},
		{"approve_always", "approval_exec_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("p")}, nil, ""},
		{"deny an approval dialog with Esc", "approval_exec_24x80", "deny", `{}`, []ptywright.Action{esc}, nil, ""},
		{"deny on the composer is refused", "completed_turn_24x80", "deny", `{}`, nil, nil, "deny: not possible in state completed_turn"},
		{"choose_option by index: a digit, no Enter", "approval_exec_24x80", "choose_option", `{"index":3}`, []ptywright.Action{ptywright.Text("3")}, nil, ""},
		{"choose_option by label", "approval_exec_24x80", "choose_option", `{"option":"yes, proceed"}`, []ptywright.Action{ptywright.Text("1")}, nil, ""},
		{"choose_option by number string", "approval_exec_24x80", "choose_option", `{"option":"2"}`, []ptywright.Action{ptywright.Text("2")}, nil, ""},
		{"choose_option label matching two options", "approval_exec_24x80", "choose_option", `{"option":"yes"}`, nil, nil, "more than one option"},
		{"choose_option index not on screen", "approval_exec_24x80", "choose_option", `{"index":7}`, nil, nil, "no option 7"},
		{"choose_option in the model picker", "model_picker_24x80", "choose_option", `{"option":"GPT-5.5"}`, []ptywright.Action{ptywright.Text("9")}, nil, ""},
		// 0.171 lists 11 models; past 9 the rows carry no number, so no digit picks them.
		{"choose_option past 9 in a longer picker", "model_picker_v0_171_24x80", "choose_option", `{"option":"GPT-5.6-Luna"}`, []ptywright.Action{up, enter}, nil, ""},
		{"choose_option by digit in a longer picker", "model_picker_v0_171_24x80", "choose_option", `{"index":4}`, []ptywright.Action{ptywright.Text("4")}, nil, ""},
		{"choose_option on the trust prompt moves and confirms", "trust_24x80", "choose_option", `{"index":2}`, []ptywright.Action{down, enter}, nil, ""},
		{"choose_option in a sign-in list moves up", "signin_option3_selected_24x80", "choose_option", `{"index":1}`, []ptywright.Action{up, up, enter}, nil, ""},
		{"choose_option on the migration prompt moves", "model_migration_24x80", "choose_option", `{"option":"Use existing model"}`, []ptywright.Action{down, enter}, nil, ""},
		{"cancel a running turn", "working_24x80", "cancel", `{}`, []ptywright.Action{esc}, str("cancelling"), ""},
		{"cancel when idle is refused", "completed_turn_24x80", "cancel", `{}`, nil, nil, "cancel: not possible in state completed_turn"},
		{"key alias esc", "", "key", `{"key":"esc"}`, []ptywright.Action{esc}, nil, ""},
		{"key shift-tab", "", "key", `{"key":"shift-tab"}`, []ptywright.Action{ptywright.Press(ptywright.KeyShiftTab)}, nil, ""},
		{"key ctrl+c", "", "key", `{"key":"ctrl+c"}`, []ptywright.Action{ptywright.Press(ptywright.Ctrl('c'))}, nil, ""},
		{"key ^c", "", "key", `{"key":"^c"}`, []ptywright.Action{ptywright.Press(ptywright.Ctrl('c'))}, nil, ""},
		{"key F2", "", "key", `{"key":"F2"}`, []ptywright.Action{ptywright.Press(ptywright.F(2))}, nil, ""},
		{"key ctrl_j is the composer's newline", "", "key", `{"key":"ctrl_j"}`, []ptywright.Action{ptywright.Text("\n")}, nil, ""},
		{"key: a character is typed", "", "key", `{"key":"q"}`, []ptywright.Action{ptywright.Text("q")}, nil, ""},
		{"key: an unknown name is typed", "", "key", `{"key":"hello"}`, []ptywright.Action{ptywright.Text("hello")}, nil, ""},
		{"key needs a key", "", "key", `{}`, nil, nil, "key: params.key"},
		{"slash_command adds the slash", "ready_24x80", "slash_command", `{"command":"status"}`,
			[]ptywright.Action{ptywright.BracketedPaste("/status"), enter}, str("slash_command"), ""},
		{"slash_command by name", "ready_24x80", "slash_command", `{"name":"/model"}`,
			[]ptywright.Action{ptywright.BracketedPaste("/model"), enter}, str("slash_command"), ""},
		{"approve_trust", "trust_24x80", "approve_trust", `{}`, []ptywright.Action{enter}, nil, ""},
		{"deny_trust", "trust_24x80", "deny_trust", `{}`, []ptywright.Action{esc}, nil, ""},
		{"dismiss_model_migration keeps the model", "model_migration_24x80", "dismiss_model_migration", `{}`, []ptywright.Action{down, enter}, nil, ""},
		{"dismiss_model_migration without the prompt", "ready_24x80", "dismiss_model_migration", `{}`, nil, nil, "no model migration prompt"},
		{"quit on an empty composer", "completed_turn_24x80", "quit", `{}`, []ptywright.Action{ptywright.Press(ptywright.Ctrl('c'))}, str(""), ""},
		{"quit with text in the composer is refused", "typing_24x80", "quit", `{}`, nil, nil, "composer holds text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := codexPlan(t, tt.fixture, tt.intent, tt.params)
			if tt.err != "" {
				require.Error(t, err)
				require.True(t, errors.Is(err, luahost.ErrRuntime), "%v", err)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.actions, plan.Actions)
			require.Equal(t, tt.lastIntent, plan.LastIntent)
		})
	}
}

func TestCodexDescribe(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	d, err := plugins.Describe(context.Background(), "codex")
	require.NoError(t, err)
	require.Equal(t, "codex", d.Manifest.Name)
	names := func(es []luahost.DescribeEntry) []string {
		var out []string
		for _, e := range es {
			require.NotEmpty(t, e["description"], "%s has no description", e.Name())
			out = append(out, e.Name())
		}
		sort.Strings(out)
		return out
	}
	// describe() lists exactly what the plugin exports.
	ext, err := plugins.NewExtension("codex")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ext.Close() })
	for _, intent := range names(d.Intents) {
		_, err := ext.Plan(context.Background(), intent, json.RawMessage(`{"prompt":"x","key":"x","command":"x","index":1}`))
		if err != nil {
			require.NotContains(t, err.Error(), "unknown intent", intent)
		}
	}
	for _, m := range names(d.WaitMatchers) {
		_, err := ext.WaitMatcher(context.Background(), m, json.RawMessage(`{}`))
		require.NoError(t, err, m)
	}
	require.Equal(t, []string{"wait_approval_matcher", "wait_ready_matcher", "wait_turn_matcher"}, names(d.WaitMatchers))
	require.Subset(t, names(d.Intents), []string{"approve", "cancel", "choose_option", "deny", "key", "send_prompt", "slash_command"})
	// Every state a fixture expects is described.
	states := names(d.States)
	paths, err := filepath.Glob(filepath.Join(codexFixtureDir, "*.expected.json"))
	require.NoError(t, err)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		var exp codexExpected
		require.NoError(t, json.Unmarshal(raw, &exp))
		require.Contains(t, states, exp.State, p)
	}
}

// TestCodexProjection checks the projector on captures: the transcript
// stays, Codex's chrome goes.
func TestCodexProjection(t *testing.T) {
	tests := []struct {
		fixture  string
		contains []string
		excludes []string
	}{
		{"completed_turn_24x80", []string{"› What is the ANSWER?", "• Here is the answer: <<<ANSWER>>>42<<<END>>>"},
			[]string{"Ask Codex to do anything", "GPT-5.5 default", "OpenAI Codex (v", "~/work", "for shortcuts"}},
		{"working_24x80", []string{"› Please be SLOW"}, []string{"Working (", "esc to interrupt", "Ask Codex"}},
		{"streaming_24x80", []string{"• slow stream chunk."}, []string{"Queued follow-up inputs", "then the ANSWER", "shift+"}},
		{"reconnecting_retry_24x80", []string{"› Trigger ERR500 please"}, []string{"Reconnecting", "high demand"}},
		{"approval_exec_24x80", []string{"Would you like to run the following command?", "$ printf 'approved\\n' > approved.txt", "1. Yes, proceed (y)"},
			[]string{"Press enter to confirm or esc to cancel", "~/work"}},
		{"ready_40x120", nil, []string{"⣿", "Ask Codex", "OpenAI Codex"}},
		{"slash_popup_24x80", nil, []string{"/model", "/fast"}},
		{"error_429_24x80", []string{"■ exceeded retry limit, last status: 429 Too Many Requests"}, []string{"Ask Codex"}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ext := codexExtension(t).(ptywright.Projector)
			cc := codexFixtureContext(codexFixtureText(t, tt.fixture), codexFixtureCols(t, tt.fixture), codexExpected{})
			dialog, id, ok, err := ext.Project(context.Background(), cc)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "codex.v1", id)
			for _, s := range tt.contains {
				require.Contains(t, dialog, s)
			}
			for _, s := range tt.excludes {
				require.NotContains(t, dialog, s)
			}
			require.NotContains(t, dialog, "\n\n\n", "blank runs are collapsed")
		})
	}
	t.Run("extraction over the projection of a scrolled answer", func(t *testing.T) {
		ext := codexExtension(t).(ptywright.Projector)
		cc := codexFixtureContext(codexFixtureText(t, "completed_long_24x80"), 80, codexExpected{})
		dialog, _, _, err := ext.Project(context.Background(), cc)
		require.NoError(t, err)
		got, err := ptywright.Extraction{Sentinels: []string{"<<<ANSWER>>>", "<<<END>>>"}}.Extract(dialog)
		require.NoError(t, err)
		require.Equal(t, "long-ok", got.Text)
	})
}

// codexShowScreen runs a program that paints text on a real PTY of the
// capture's size and keeps still, for matchers to run against.
func codexShowScreen(t *testing.T, text string, rows, cols int) *ptywright.Session {
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

// TestCodexWaitMatchers runs the plugin's wait matchers against captures
// painted on a real terminal: they must fire on the screens they are for
// and not on the others.
func TestCodexWaitMatchers(t *testing.T) {
	tests := []struct {
		matcher string
		screen  string // fixture name, or "second_turn"
		fires   bool
	}{
		{"wait_turn_matcher", "completed_turn_24x80", true},
		{"wait_turn_matcher", "approved_completed_24x80", true},
		{"wait_turn_matcher", "error_401_24x80", true},
		{"wait_turn_matcher", "denied_24x80", true},
		{"wait_turn_matcher", "approval_exec_24x80", true},
		{"wait_turn_matcher", "working_24x80", false},
		{"wait_turn_matcher", "streaming_24x80", false},
		{"wait_turn_matcher", "second_turn", false},
		{"wait_turn_matcher", "ready_24x80", false},
		{"wait_approval_matcher", "approval_exec_24x80", true},
		{"wait_approval_matcher", "completed_turn_24x80", false},
		{"wait_ready_matcher", "ready_24x80", true},
		{"wait_ready_matcher", "completed_turn_24x80", true},
		{"wait_ready_matcher", "typing_24x80", false},
		{"wait_ready_matcher", "trust_24x80", false},
	}
	for _, tt := range tests {
		t.Run(tt.matcher+"/"+tt.screen, func(t *testing.T) {
			t.Parallel()
			text := ""
			if tt.screen == "second_turn" {
				text = codexSecondTurn(t)
			} else {
				text = codexFixtureText(t, tt.screen)
			}
			s := codexShowScreen(t, text, 24, 80)
			want := strings.TrimRight(strings.Join(strings.Split(strings.TrimSuffix(text, "\n"), "\n"), "\n"), "\n")
			require.Eventually(t, func() bool { return s.Screen().PlainText() == want }, 10*time.Second, 10*time.Millisecond,
				"the terminal shows the capture")

			m, err := codexExtension(t).WaitMatcher(context.Background(), tt.matcher, json.RawMessage(`{"completed_turn_stable_ms":100}`))
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

// BenchmarkClassifyCodex measures one classify call of the codex plugin on
// the largest capture (bytes) and on the screen that walks every detector
// before the composer's (a scrolled, completed long answer at 40x120).
func BenchmarkClassifyCodex(b *testing.B) {
	paths, err := filepath.Glob(filepath.Join(codexFixtureDir, "*.txt"))
	require.NoError(b, err)
	largest, size := "", int64(-1)
	for _, p := range paths {
		st, err := os.Stat(p)
		require.NoError(b, err)
		if st.Size() > size {
			largest, size = strings.TrimSuffix(filepath.Base(p), ".txt"), st.Size()
		}
	}
	for _, name := range []string{largest, "completed_long_40x120"} {
		b.Run(name, func(b *testing.B) {
			ext := codexExtension(b)
			text := codexFixtureText(b, name)
			title := "Fake task | work"
			cc := codexFixtureContext(text, codexFixtureCols(b, name), codexExpected{GivenTitle: &title})
			tuitest.BenchClassify(b, ext, cc)
			b.ReportMetric(float64(len(text)), "screen_bytes")
		})
	}
}

// TestChooseOptionMissIsInvalidParams: an option the screen does not show,
// or a label that matches none or several, is the caller's mistake: -32602
// over JSON-RPC, not a plugin failure.
func TestChooseOptionMissIsInvalidParams(t *testing.T) {
	for _, tt := range []struct{ params, errHas string }{
		{`{"index":7}`, "no option 7 on screen"},
		{`{"option":"yes"}`, "more than one option"},
		{`{"option":"never offered"}`, "no option matches"},
	} {
		t.Run(tt.errHas, func(t *testing.T) {
			_, err := codexPlan(t, "approval_exec_24x80", "choose_option", tt.params)
			require.ErrorIs(t, err, ptywright.ErrInvalidParams)
			require.ErrorContains(t, err, tt.errHas)
		})
	}
}

// TestCodexTypingIntentsAwaitAKnownScreen: the intents that type into the
// composer hold their keys for a screen the plugin knows takes them, and
// send_prompt refuses a composer that still holds text, naming it.
func TestCodexTypingIntentsAwaitAKnownScreen(t *testing.T) {
	for _, tt := range []struct{ fixture, intent, state string }{
		{"ready_24x80", "send_prompt", "ready"},
		{"working_24x80", "steer", "thinking"},
		{"working_24x80", "queue", "thinking"},
	} {
		plan, err := codexPlan(t, tt.fixture, tt.intent, `{"prompt":"hello"}`)
		require.NoError(t, err, tt.intent)
		require.NotNil(t, plan.Await, "%s awaits a screen", tt.intent)
		require.Contains(t, plan.Await.States, tt.state, tt.intent)
		require.NotContains(t, plan.Await.States, "unrecognized", tt.intent)
		require.NotContains(t, plan.Await.States, "starting", tt.intent)
	}
	_, err := codexPlan(t, "typing_24x80", "send_prompt", `{"prompt":"hello"}`)
	require.ErrorIs(t, err, ptywright.ErrIntentRefused)
	require.ErrorContains(t, err, `the composer still holds text ("Tell me the ANSWER")`)
}
