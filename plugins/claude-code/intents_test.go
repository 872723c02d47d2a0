package claudecode_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

// inputMark is the transcript marker every claude-code intent sets before
// it types, so its wait matchers can tell new screens from old ones.
var inputMark = ptywright.Action{Type: ptywright.ActionMarkTranscript, Label: "claude-code.input"}

func ccPress(k ptywright.Key) ptywright.Action { return ptywright.Press(k) }

// claudeFixturesByName loads the captured screens by name.
func claudeFixturesByName(t *testing.T) map[string]claudeFixture {
	fixtures := map[string]claudeFixture{}
	for _, fx := range loadClaudeFixtures(t) {
		fixtures[fx.Name] = fx
	}
	return fixtures
}

// claudeAfter returns a fresh plugin instance that has classified the
// fixture named screen (none when ""), as an adapter has between a wait and
// a send.
func claudeAfter(t *testing.T, fixtures map[string]claudeFixture, screen string) ptywright.Extension {
	t.Helper()
	ext := newClaudeExtension(t)
	if screen != "" {
		fx, ok := fixtures[screen]
		require.True(t, ok, "fixture %s", screen)
		_, err := ext.Classify(context.Background(), classifyContext(fx.Screen, nil, 5000))
		require.NoError(t, err)
	}
	return ext
}

// TestClaudeCodeIntents plans intents on a plugin instance that has just
// classified a captured screen (or none), as an adapter does between a
// wait and a send: label-based intents act on the menu that screen shows.
func TestClaudeCodeIntents(t *testing.T) {
	fixtures := claudeFixturesByName(t)
	str := func(s string) *string { return &s }
	tests := []struct {
		name       string
		screen     string // fixture classified first; "" for none
		intent     string
		params     string
		want       []ptywright.Action
		lastIntent *string
		errHas     string
	}{
		{name: "approve_trust moves down to Yes in 2.1.330", screen: "waiting_for_trust_24x80", intent: "approve_trust",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyEnter)}},
		{name: "approve_trust with the cursor on Yes just confirms", screen: "waiting_for_trust_yes_selected_24x80", intent: "approve_trust",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "approve_trust without a classified screen", intent: "approve_trust",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyEnter)}},
		{name: "approve on the trust dialog trusts", screen: "waiting_for_trust_40x120", intent: "approve",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyEnter)}},
		{name: "deny_trust picks No, exit", screen: "waiting_for_trust_yes_selected_24x80", intent: "deny_trust",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyUp), ccPress(ptywright.KeyEnter)}},
		{name: "deny on the trust dialog", screen: "waiting_for_trust_24x80", intent: "deny",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "API key: choose Yes by label", screen: "starting_api_key_confirm_24x80", intent: "choose_option", params: `{"label":"Yes"}`,
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyUp), ccPress(ptywright.KeyEnter)}},
		{name: "API key: approve accepts the key", screen: "starting_api_key_confirm_40x120", intent: "approve",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyUp), ccPress(ptywright.KeyEnter)}},
		{name: "API key: choose the preselected No", screen: "starting_api_key_confirm_24x80", intent: "choose_option", params: `{"option":"No (recommended)"}`,
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "API key: dismiss_welcome refuses to decide", screen: "starting_api_key_confirm_24x80", intent: "dismiss_welcome",
			errHas: "API-key page"},
		{name: "theme picker: dismiss_welcome accepts the default", screen: "starting_theme_picker_24x80", intent: "dismiss_welcome",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "security notes: dismiss_welcome", screen: "starting_security_notes_24x80", intent: "dismiss_welcome",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "dismiss_welcome at the prompt does nothing", screen: "ready_fresh_auto_notice_24x80", intent: "dismiss_welcome",
			want: []ptywright.Action{}},
		{name: "permission: choose by index types the digit only", screen: "waiting_for_permission_bash_24x80", intent: "choose_option", params: `{"index":2}`,
			want: []ptywright.Action{inputMark, ptywright.Text("2")}},
		{name: "permission: choose by exact label", screen: "waiting_for_permission_bash_24x80", intent: "choose_option", params: `{"option":"No"}`,
			want: []ptywright.Action{inputMark, ptywright.Text("4")}},
		{name: "permission: choose by label substring", screen: "waiting_for_permission_bash_24x80", intent: "choose_option", params: `{"label":"always allow"}`,
			want: []ptywright.Action{inputMark, ptywright.Text("2")}},
		{name: "permission: unknown label lists the options", screen: "waiting_for_permission_bash_24x80", intent: "choose_option", params: `{"label":"Maybe"}`,
			errHas: `no option labelled "Maybe"`},
		{name: "permission: approve with the cursor on 1 presses Enter", screen: "waiting_for_permission_bash_24x80", intent: "approve",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "permission: approve with the cursor moved picks 1", screen: "waiting_for_permission_bash_option2_24x80", intent: "approve",
			want: []ptywright.Action{inputMark, ptywright.Text("1")}},
		{name: "permission: deny is Escape", screen: "waiting_for_permission_write_24x80", intent: "deny",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEscape)}},
		{name: "question: free text after its option", screen: "waiting_for_user_input_ask_question_24x80", intent: "choose_option",
			params: `{"label":"Type something.","text":"howdy"}`,
			want:   []ptywright.Action{inputMark, ptywright.Text("3"), ptywright.Text("howdy"), ccPress(ptywright.KeyEnter)}},
		{name: "enter plan mode: unnumbered options take arrows", screen: "synthetic_waiting_for_enter_plan_mode_24x80", intent: "choose_option",
			params: `{"label":"No, start implementing now"}`,
			want:   []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyEnter)}},
		{name: "model list: a visible model by label", screen: "waiting_for_model_select_40x120", intent: "choose_option", params: `{"label":"Sonnet"}`,
			want: []ptywright.Action{inputMark, ptywright.Text("4")}},
		{name: "model list: a model scrolled out of view by index", screen: "waiting_for_model_select_24x80", intent: "choose_option", params: `{"index":4}`,
			want: []ptywright.Action{inputMark, ptywright.Text("4")}},
		{name: "model list: a model scrolled out of view by label", screen: "waiting_for_model_select_24x80", intent: "choose_option", params: `{"label":"Sonnet"}`,
			errHas: `no option labelled "Sonnet"`},
		{name: "choose_option by number without a menu types it", intent: "choose_option", params: `{"option":"3"}`,
			want: []ptywright.Action{inputMark, ptywright.Text("3")}},
		{name: "choose_option by label without a menu", intent: "choose_option", params: `{"label":"Yes"}`,
			errHas: "no menu on screen"},
		{name: "choose_option needs something", intent: "choose_option", errHas: "index, option or label"},
		{name: "choose_option rejects index 0", intent: "choose_option", params: `{"index":0}`, errHas: "positive integer"},
		{name: "send_prompt pastes and submits", intent: "send_prompt", params: `{"prompt":"hello there"}`,
			want:       []ptywright.Action{inputMark, ptywright.BracketedPaste("hello there"), ccPress(ptywright.KeyEnter)},
			lastIntent: str("prompt_submitted")},
		{name: "send_prompt needs a prompt", intent: "send_prompt", params: `{}`, errHas: "params.prompt"},
		{name: "cancel", intent: "cancel", want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEscape)}, lastIntent: str("cancelling")},
		{name: "force_cancel", intent: "force_cancel",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEscape), ccPress(ptywright.KeyEscape)}, lastIntent: str("cancelling")},
		{name: "steer keeps last_intent", intent: "steer", params: `{"prompt":"also this"}`,
			want: []ptywright.Action{inputMark, ptywright.BracketedPaste("also this"), ccPress(ptywright.KeyEnter)}},
		{name: "key: hyphenated name", intent: "key", params: `{"key":"shift-tab"}`, want: []ptywright.Action{inputMark, ccPress(ptywright.KeyShiftTab)}},
		{name: "key: esc alias", intent: "key", params: `{"key":"Esc"}`, want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEscape)}},
		{name: "key: Ctrl+C", intent: "key", params: `{"key":"Ctrl+C"}`, want: []ptywright.Action{inputMark, ccPress(ptywright.Ctrl('c'))}},
		{name: "key: return alias", intent: "key", params: `{"key":"return"}`, want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}},
		{name: "key: ctrl-j is a newline", intent: "key", params: `{"key":"ctrl-j"}`, want: []ptywright.Action{inputMark, ptywright.Text("\n")}},
		{name: "key: repeated", intent: "key", params: `{"key":"down","times":3}`,
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyDown), ccPress(ptywright.KeyDown)}},
		{name: "key: unknown names are typed", intent: "key", params: `{"key":"y"}`, want: []ptywright.Action{inputMark, ptywright.Text("y")}},
		{name: "key: ctrl+g notes the editor", intent: "key", params: `{"key":"ctrl+g"}`,
			want: []ptywright.Action{inputMark, ccPress(ptywright.Ctrl('g'))}, lastIntent: str("external_editor")},
		{name: "key: bad times", intent: "key", params: `{"key":"down","times":0}`, errHas: "params.times"},
		{name: "slash_command adds the slash", intent: "slash_command", params: `{"command":"usage"}`,
			want: []ptywright.Action{inputMark, ptywright.BracketedPaste("/usage"), ccPress(ptywright.KeyEnter)}},
		{name: "slash_command by name", intent: "slash_command", params: `{"name":"/model"}`,
			want: []ptywright.Action{inputMark, ptywright.BracketedPaste("/model"), ccPress(ptywright.KeyEnter)}},
		{name: "slash_command needs a command", intent: "slash_command", params: `{}`, errHas: "params.command"},
		{name: "attach_file pastes without Enter", intent: "attach_file", params: `{"path":"/tmp/a.png"}`,
			want: []ptywright.Action{inputMark, ptywright.BracketedPaste("/tmp/a.png")}},
		{name: "expand", intent: "expand", want: []ptywright.Action{inputMark, ccPress(ptywright.Ctrl('o'))}},
		{name: "model_effort_left", intent: "model_effort_left", want: []ptywright.Action{inputMark, ccPress(ptywright.KeyLeft)}},
		{name: "model_effort_right", intent: "model_effort_right", want: []ptywright.Action{inputMark, ccPress(ptywright.KeyRight)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := claudeAfter(t, fixtures, tt.screen)
			ctx := context.Background()
			params := tt.params
			if params == "" {
				params = "{}"
			}
			plan, err := ext.Plan(ctx, tt.intent, json.RawMessage(params))
			if tt.errHas != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.errHas)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, nonNilActions(plan.Actions))
			if tt.lastIntent == nil {
				require.Nil(t, plan.LastIntent)
			} else {
				require.NotNil(t, plan.LastIntent)
				require.Equal(t, *tt.lastIntent, *plan.LastIntent)
			}
		})
	}
}

func nonNilActions(a []ptywright.Action) []ptywright.Action {
	if a == nil {
		return []ptywright.Action{}
	}
	return a
}

// TestClaudeCodeMenuIsConsumed checks that a label-based intent uses a menu
// once: a second approve_trust without a new classify falls back to the
// keys of a fresh trust dialog instead of replaying a stale cursor.
func TestClaudeCodeMenuIsConsumed(t *testing.T) {
	var trust claudeFixture
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Name == "waiting_for_trust_yes_selected_24x80" {
			trust = fx
		}
	}
	ext := newClaudeExtension(t)
	ctx := context.Background()
	_, err := ext.Classify(ctx, classifyContext(trust.Screen, nil, 5000))
	require.NoError(t, err)
	first, err := ext.Plan(ctx, "approve_trust", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}, first.Actions)
	second, err := ext.Plan(ctx, "approve_trust", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Equal(t, []ptywright.Action{inputMark, ccPress(ptywright.KeyDown), ccPress(ptywright.KeyEnter)}, second.Actions)
}

func TestClaudeCodeManifestAndDescribe(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	require.True(t, plugins.IsBuiltin("claude-code"))

	m, err := plugins.Manifest("claude-code")
	require.NoError(t, err)
	require.Equal(t, manifest.KindAdapter, m.Kind)
	require.Equal(t, manifest.RuntimeLua, m.Runtime)
	require.NotNil(t, m.DefaultTarget)
	require.Equal(t, "claude", m.DefaultTarget.Program)
	require.ElementsMatch(t, manifest.AllPermissions(), m.Permissions)

	d, err := plugins.Describe(context.Background(), "claude-code")
	require.NoError(t, err)
	intents := map[string]luahost.DescribeEntry{}
	for _, e := range d.Intents {
		intents[e.Name()] = e
	}
	for _, name := range []string{"send_prompt", "approve", "deny", "choose_option", "cancel", "force_cancel", "steer",
		"key", "approve_trust", "deny_trust", "dismiss_welcome", "expand", "model_effort_left", "model_effort_right",
		"slash_command", "attach_file", "parser_override"} {
		e, ok := intents[name]
		require.True(t, ok, "describe() lists no intent %s", name)
		require.NotEmpty(t, e["description"], "intent %s: description", name)
		require.NotNil(t, e["params_schema"], "intent %s: params_schema", name)
		require.Contains(t, m.Intents, name, "manifest intents")
	}
	var matchers []string
	for _, e := range d.WaitMatchers {
		matchers = append(matchers, e.Name())
	}
	require.Subset(t, matchers, []string{"wait_turn_matcher", "wait_cancel_settled_matcher"})
	var states []string
	for _, e := range d.States {
		states = append(states, e.Name())
		require.NotEmpty(t, e["description"], "state %s: description", e.Name())
	}
	// unrecognized is the fail-safe reading no capture shows: the adverse
	// property tests (adverse_test.go) prove it over every fixture.
	require.ElementsMatch(t, append([]string{"unrecognized"}, claudeCodeStates...), states)
}

// screenVerdict decides a matcher tree on a screen's text alone: the
// screen branches as a wait would, the branches about time and history
// (screen_stable, lua: checked live by the end-to-end test) as satisfied,
// and process_exited as not.
func screenVerdict(t *testing.T, m ptywright.Matcher, text string) bool {
	switch m.Type {
	case ptywright.MatchScreenRegex:
		return regexp.MustCompile(m.Value).MatchString(text)
	case ptywright.MatchContainsText:
		return strings.Contains(text, m.Value)
	case ptywright.MatchScreenStable, ptywright.MatchLua:
		return true
	case ptywright.MatchProcessExited:
		return false
	case ptywright.MatchAny:
		return slices.ContainsFunc(m.Matchers, func(s ptywright.Matcher) bool { return screenVerdict(t, s, text) })
	case ptywright.MatchAll:
		return !slices.ContainsFunc(m.Matchers, func(s ptywright.Matcher) bool { return !screenVerdict(t, s, text) })
	case ptywright.MatchNone:
		return !slices.ContainsFunc(m.Matchers, func(s ptywright.Matcher) bool { return screenVerdict(t, s, text) })
	}
	t.Fatalf("screenVerdict: unexpected matcher kind %s", m.Type)
	return false
}

func matcherHas(m ptywright.Matcher, keep func(ptywright.Matcher) bool) bool {
	if keep(m) {
		return true
	}
	return slices.ContainsFunc(m.Matchers, func(s ptywright.Matcher) bool { return matcherHas(s, keep) })
}

// TestClaudeCodeWaitMatchers checks the wait matchers' screen expressions
// against the captures: which screens end a turn, which mean busy, which
// wait for the user. (Their lua branch and stability window are checked
// live by the end-to-end test.)
func TestClaudeCodeWaitMatchers(t *testing.T) {
	ext := newClaudeExtension(t)
	ctx := context.Background()
	build := func(name string) ptywright.Matcher {
		m, err := ext.WaitMatcher(ctx, name, json.RawMessage(`{"completed_turn_stable_ms":450}`))
		require.NoError(t, err, name)
		require.NoError(t, m.Validate(), name)
		return m
	}
	turn := build("wait_turn_matcher")
	require.True(t, matcherHas(turn, func(m ptywright.Matcher) bool {
		return m.Type == ptywright.MatchScreenStable && m.MinMs == 450
	}), "wait_turn_matcher uses completed_turn_stable_ms")
	require.True(t, matcherHas(turn, func(m ptywright.Matcher) bool {
		return m.Type == ptywright.MatchLua && m.Lua.Plugin == "claude-code" && m.Lua.Predicate == "output_since_input"
	}), "wait_turn_matcher needs output since the last input")
	require.True(t, matcherHas(turn, func(m ptywright.Matcher) bool { return m.Type == ptywright.MatchProcessExited }))

	type rule struct {
		prefixes []string // fixtures whose name starts with one of these
		match    bool
	}
	cases := map[string][]rule{
		"wait_turn_matcher": {
			{[]string{"completed_turn_", "ready_after_", "ready_fresh_", "ready_manual_", "ready_plan_mode",
				"waiting_for_permission_", "waiting_for_user_input_", "waiting_for_plan_approval_", "synthetic_waiting_for_enter_plan_mode",
				"error_auth", "error_bad", "error_conn", "error_over", "error_rate", "error_server", "error_stream"}, true},
			{[]string{"thinking_", "cancelling_", "ready_prompt_typed", "ready_pasted_text", "ready_slash_menu",
				"starting_first_frame", "starting_theme", "starting_security", "usage_screen_", "local_ui_"}, false},
		},
		"wait_cancel_settled_matcher": {
			{[]string{"ready_after_cancel", "ready_after_deny", "ready_after_tool_cancel", "completed_turn_"}, true},
			{[]string{"thinking_", "cancelling_"}, false},
		},
		"wait_busy_matcher": {
			{[]string{"thinking_", "cancelling_"}, true},
			{[]string{"completed_turn_", "ready_", "error_", "waiting_for_", "starting_", "usage_", "local_ui_"}, false},
		},
		"wait_input_matcher": {
			{[]string{"starting_theme", "starting_api_key", "starting_security", "waiting_for_trust_", "waiting_for_login_",
				"completed_turn_", "ready_after_", "ready_fresh_", "ready_manual_", "waiting_for_permission_", "waiting_for_user_input_",
				"waiting_for_plan_approval_", "waiting_for_model_select", "usage_screen_", "local_ui_", "error_",
				"waiting_for_external_editor_gui", "waiting_for_external_editor_vi", "waiting_for_resume_select", "starting_mcp_server_approval"}, true},
			{[]string{"thinking_", "cancelling_", "ready_prompt_typed", "starting_first_frame"}, false},
		},
	}
	fixtures := loadClaudeFixtures(t)
	for name, rules := range cases {
		m := build(name)
		for _, fx := range fixtures {
			for _, r := range rules {
				if !slices.ContainsFunc(r.prefixes, func(p string) bool { return strings.HasPrefix(fx.Name, p) }) {
					continue
				}
				hit := screenVerdict(t, m, fx.Screen.PlainText)
				require.Equal(t, r.match, hit, "%s on %s", name, fx.Name)
			}
		}
	}
}

// TestClaudeCodeOutputSinceInput runs the predicate the wait matchers use
// through the registry, as a wait does.
func TestClaudeCodeOutputSinceInput(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	tests := []struct {
		name    string
		markers map[string]int64
		cursor  int64
		want    bool
	}{
		{"no marker yet", map[string]int64{}, 10, true},
		{"nothing printed since the input", map[string]int64{"claude-code.input": 10}, 10, false},
		{"output since the input", map[string]int64{"claude-code.input": 10}, 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := plugins.EvalPredicate(context.Background(), "claude-code", "output_since_input", contract.PredicateInput{
				Markers: tt.markers, Cursor: tt.cursor, Params: json.RawMessage(`{"marker":"claude-code.input"}`),
			})
			require.NoError(t, err)
			require.Equal(t, tt.want, out.Matched)
		})
	}
}

// TestChooseOptionMissIsInvalidParams: asking for an option the screen
// does not show is the caller's mistake, -32602 over JSON-RPC, not a
// plugin failure (-32603).
func TestChooseOptionMissIsInvalidParams(t *testing.T) {
	fixtures := claudeFixturesByName(t)
	for _, tt := range []struct{ screen, params, errHas string }{
		{"waiting_for_permission_bash_24x80", `{"label":"Maybe"}`, `no option labelled "Maybe"`},
		{"synthetic_waiting_for_enter_plan_mode_24x80", `{"index":9}`, "no option 9"},
		{"", `{"label":"Yes"}`, "no menu on screen"},
	} {
		t.Run(tt.errHas, func(t *testing.T) {
			ext := claudeAfter(t, fixtures, tt.screen)
			ctx := context.Background()
			_, err := ext.Plan(ctx, "choose_option", json.RawMessage(tt.params))
			require.ErrorIs(t, err, ptywright.ErrInvalidParams)
			require.ErrorContains(t, err, tt.errHas)
		})
	}
}

// TestClaudeCodeTypingIntentsAwaitAKnownScreen: send_prompt and steer hold
// their keys for a screen the plugin knows takes them, and send_prompt
// refuses a prompt box that still holds typed text, naming it.
func TestClaudeCodeTypingIntentsAwaitAKnownScreen(t *testing.T) {
	fixtures := claudeFixturesByName(t)
	for _, tt := range []struct{ screen, intent, state string }{
		{"completed_turn_hello_24x80", "send_prompt", "completed_turn"},
		{"completed_turn_hello_24x80", "steer", "thinking"},
	} {
		plan, err := claudeAfter(t, fixtures, tt.screen).Plan(context.Background(), tt.intent, json.RawMessage(`{"prompt":"hello"}`))
		require.NoError(t, err, tt.intent)
		require.NotNil(t, plan.Await, "%s awaits a screen", tt.intent)
		require.Contains(t, plan.Await.States, tt.state, tt.intent)
		require.NotContains(t, plan.Await.States, "unrecognized", tt.intent)
		require.NotContains(t, plan.Await.States, "starting", tt.intent)
	}
	_, err := claudeAfter(t, fixtures, "ready_prompt_typed_24x80").Plan(context.Background(), "send_prompt", json.RawMessage(`{"prompt":"hello"}`))
	require.ErrorIs(t, err, ptywright.ErrIntentRefused)
	require.ErrorContains(t, err, `the prompt box still holds text ("hello there fake model")`)
}
