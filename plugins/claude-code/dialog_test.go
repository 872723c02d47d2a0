package claudecode_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestClaudeCodeDialogShape: every permission dialog fixture reports
// metadata.dialog in the shape every built-in plugin shares (tool kind,
// what it acts on, the options and the highlighted one), and no other
// screen reports one: not a dialog quoted in an answer either.
func TestClaudeCodeDialogShape(t *testing.T) {
	kinds := []string{"shell", "edit", "write", "read", "web_fetch", "web_search", "mcp", "other"}
	dialogs := 0
	for _, fx := range loadClaudeFixtures(t) {
		if fx.Expect == nil {
			continue
		}
		st := classifyFixture(t, fx)
		d, ok := ptywright.DialogOf(st)
		if st.State != "waiting_for_permission" {
			require.False(t, ok, "%s: state %s reports a dialog %+v", fx.Name, st.State, d)
			continue
		}
		require.True(t, ok, "%s: no metadata.dialog", fx.Name)
		dialogs++
		require.Equal(t, "permission", d.Kind, fx.Name)
		require.Equal(t, d.ID, st.Metadata["dialog_id"], fx.Name)
		require.Contains(t, kinds, d.Tool, fx.Name)
		require.NotEmpty(t, d.ToolName, fx.Name)
		require.NotEmpty(t, d.Options, fx.Name)
		var indexes []int
		for _, o := range d.Options {
			require.NotEmpty(t, o.Label, "%s: option %d", fx.Name, o.Index)
			indexes = append(indexes, o.Index)
		}
		require.True(t, slices.Contains(indexes, d.SelectedIndex), "%s: highlight %d not among %v", fx.Name, d.SelectedIndex, indexes)
		require.Regexp(t, `^Yes`, d.Options[0].Label, fx.Name)
		switch d.Tool {
		case "shell":
			require.NotEmpty(t, d.Command, fx.Name)
		case "edit", "write":
			require.NotEmpty(t, d.Path, fx.Name)
		case "web_fetch":
			require.Regexp(t, `^https?://`, d.URL, fx.Name)
		case "mcp":
			require.NotEmpty(t, d.MCPServer, fx.Name)
			require.NotEmpty(t, d.MCPTool, fx.Name)
		}
	}
	require.GreaterOrEqual(t, dialogs, 8)
}

// TestClaudeCodeDialogInstances: a dialog's id stays while it is up (read
// again, or with the highlight moved) and changes for the next dialog,
// even one that asks the same once the prompt box was seen between them.
func TestClaudeCodeDialogInstances(t *testing.T) {
	byName := map[string]claudeFixture{}
	for _, fx := range loadClaudeFixtures(t) {
		byName[fx.Name] = fx
	}
	ext := newClaudeExtension(t)
	id := func(name string) string {
		fx, ok := byName[name]
		require.True(t, ok, "fixture %s", name)
		st, err := ext.Classify(context.Background(), classifyContext(fx.Screen, nil, 5000))
		require.NoError(t, err)
		d, ok := ptywright.DialogOf(st)
		if !ok {
			return ""
		}
		return d.ID
	}
	first := id("waiting_for_permission_bash_24x80")
	require.NotEmpty(t, first)
	require.Equal(t, first, id("waiting_for_permission_bash_24x80"), "read again")
	require.Equal(t, first, id("waiting_for_permission_bash_option2_24x80"), "the highlight moved")
	require.Empty(t, id("ready_accept_edits_24x80"))
	second := id("waiting_for_permission_bash_24x80")
	require.NotEqual(t, first, second, "the same question after the prompt box is another dialog")
	third := id("waiting_for_permission_write_24x80")
	require.NotEqual(t, second, third)
	require.NotEqual(t, first, third)
}

// TestClaudeCodeAnswersNameTheirOption: the answers to a permission
// dialog name the dialog and the option their keys choose, for the host's
// check at the moment of the key.
func TestClaudeCodeAnswersNameTheirOption(t *testing.T) {
	fixtures := claudeFixturesByName(t)
	const bash = "waiting_for_permission_bash_24x80"
	const allow = "Yes, and always allow access to /tmp/ptyw-perm from this project"
	tests := []struct {
		name, screen, intent, params string
		want                         []ptywright.Action
		index, highlighted           int
		label, errHas                string
	}{
		{name: "approve on the highlighted Yes: Enter", screen: bash, intent: "approve",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEnter)}, index: 1, label: "Yes", highlighted: 1},
		{name: "approve with the highlight moved: its digit", screen: "waiting_for_permission_bash_option2_24x80", intent: "approve",
			want: []ptywright.Action{inputMark, ptywright.Text("1")}, index: 1, label: "Yes"},
		{name: "approve_always: the option that allows more, by its digit", screen: bash, intent: "approve_always",
			want: []ptywright.Action{inputMark, ptywright.Text("2")}, index: 2, label: allow},
		{name: "approve_always never picks auto mode", screen: "waiting_for_permission_bash_dont_ask_again_24x80", intent: "approve_always",
			want: []ptywright.Action{inputMark, ptywright.Text("2")}, index: 2, label: "Yes, and don’t ask again for: python3 -c 'import time; time.sleep(40)'"},
		{name: "deny: Escape is the No", screen: bash, intent: "deny",
			want: []ptywright.Action{inputMark, ccPress(ptywright.KeyEscape)}, index: 4, label: "No"},
		{name: "choose_option by label", screen: bash, intent: "choose_option", params: `{"label":"always allow"}`,
			want: []ptywright.Action{inputMark, ptywright.Text("2")}, index: 2, label: allow},
		{name: "approve_always off a dialog is refused", screen: "ready_accept_edits_24x80", intent: "approve_always", errHas: "no permission dialog"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := claudeAfter(t, fixtures, tt.screen)
			params := tt.params
			if params == "" {
				params = "{}"
			}
			plan, err := ext.Plan(context.Background(), tt.intent, json.RawMessage(params))
			if tt.errHas != "" {
				require.ErrorIs(t, err, ptywright.ErrIntentRefused)
				require.ErrorContains(t, err, tt.errHas)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, plan.Actions)
			require.NotNil(t, plan.Answer)
			require.Regexp(t, `^perm-[0-9a-f]{8}-\d+$`, plan.Answer.DialogID)
			require.Equal(t, tt.index, plan.Answer.Index)
			require.Equal(t, tt.label, plan.Answer.Label)
			require.Equal(t, tt.highlighted, plan.Answer.Highlighted)
		})
	}
}
