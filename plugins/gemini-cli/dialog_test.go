package geminicli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestGeminiDialogShape: every tool confirmation fixture reports
// metadata.dialog in the shape every built-in plugin shares (tool kind,
// what it acts on, the options and the highlighted one), and no other
// screen reports one: not the trust dialog, the menus, or a dialog quoted
// in an answer.
func TestGeminiDialogShape(t *testing.T) {
	texts, err := filepath.Glob(filepath.Join(geminiFixtureDir, "*.txt"))
	require.NoError(t, err)
	ext := geminiExtension(t)
	dialogs := 0
	for _, path := range texts {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		raw, err := os.ReadFile(filepath.Join(geminiFixtureDir, name+".expected.json"))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		var exp geminiExpected
		require.NoError(t, json.Unmarshal(raw, &exp))
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		st, err := ext.Classify(t.Context(), geminiFixtureContext(string(text), geminiFixtureCols(t, name), exp))
		require.NoError(t, err)
		d, ok := ptywright.DialogOf(st)
		if exp.Rule != "gemini.permission" {
			require.False(t, ok, "%s: state %s reports a dialog %+v", name, st.State, d)
			continue
		}
		require.True(t, ok, "%s: no metadata.dialog", name)
		dialogs++
		require.Equal(t, "permission", d.Kind, name)
		require.Regexp(t, `^perm-[0-9a-f]{8}-\d+$`, d.ID, name)
		require.Equal(t, d.ID, st.Metadata["dialog_id"], name)
		var indexes []int
		for _, o := range d.Options {
			require.NotEmpty(t, o.Label, "%s: option %d", name, o.Index)
			indexes = append(indexes, o.Index)
		}
		require.True(t, slices.Contains(indexes, d.SelectedIndex), "%s: highlight %d not among %v", name, d.SelectedIndex, indexes)
		require.Equal(t, "Allow once", d.Options[0].Label, name)
		require.Equal(t, "esc", d.Options[len(d.Options)-1].Key, name)
		switch {
		case strings.HasPrefix(name, "approval_shell"):
			require.Equal(t, "shell", d.Tool, name)
			require.Equal(t, "Shell", d.ToolName, name)
			require.Equal(t, `printf 'approved\n' > approved.txt`, d.Command, name)
		case strings.HasPrefix(name, "approval_write"):
			require.Equal(t, "write", d.Tool, name)
			require.Equal(t, "WriteFile", d.ToolName, name)
			require.Equal(t, "notes.txt", d.Path, name)
			require.Empty(t, d.Command, "%s: the file's content is not a command", name)
		default:
			t.Fatalf("%s: a confirmation fixture this test does not know", name)
		}
	}
	require.GreaterOrEqual(t, dialogs, 6)
}

// TestGeminiDialogInstances: a dialog's id stays while it is up (read
// again, or with the highlight moved) and changes for the next dialog,
// even one that asks the same once the composer was seen between them.
func TestGeminiDialogInstances(t *testing.T) {
	ext := geminiExtension(t)
	id := func(name string) string {
		st := geminiClassify(t, ext, geminiFixtureText(t, name), geminiFixtureCols(t, name), "", "")
		d, ok := ptywright.DialogOf(st)
		if !ok {
			return ""
		}
		return d.ID
	}
	first := id("approval_shell_24x80")
	require.NotEmpty(t, first)
	require.Equal(t, first, id("approval_shell_24x80"), "read again")
	require.Equal(t, first, id("approval_shell_option2_24x80"), "the highlight moved")
	require.Empty(t, id("ready_24x80"))
	second := id("approval_shell_24x80")
	require.NotEqual(t, first, second, "the same question after the composer is another dialog")
	third := id("approval_write_24x80")
	require.NotEqual(t, second, third)
}

// TestGeminiAnswersNameTheirOption: the answers to a tool confirmation
// name the dialog and the option their keys choose, for the host's check
// at the moment of the key; the trust dialog's answers name none.
func TestGeminiAnswersNameTheirOption(t *testing.T) {
	enter := ptywright.Press(ptywright.KeyEnter)
	esc := ptywright.Press(ptywright.KeyEscape)
	tests := []struct {
		name, fixture, intent, params string
		want                          []ptywright.Action
		index, highlighted            int
		label                         string
	}{
		{"approve: Enter on the highlighted Allow once", "approval_shell_24x80", "approve", `{}`, []ptywright.Action{enter}, 1, 1, "Allow once"},
		{"approve: the digit when the highlight moved", "approval_shell_option2_24x80", "approve", `{}`, []ptywright.Action{ptywright.Text("1")}, 1, 0, "Allow once"},
		{"approve_always", "approval_shell_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("2")}, 2, 0, "Allow for this session"},
		{"deny: Esc is the (esc) option", "approval_write_24x80", "deny", `{}`, []ptywright.Action{esc}, 4, 0, "No, suggest changes"},
		{"choose_option by label", "approval_write_24x80", "choose_option", `{"label":"external editor"}`, []ptywright.Action{ptywright.Text("3")}, 3, 0, "Modify with external editor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := geminiPlan(t, tt.fixture, tt.intent, tt.params)
			require.NoError(t, err)
			require.Equal(t, tt.want, plan.Actions)
			require.NotNil(t, plan.Answer)
			require.Regexp(t, `^perm-[0-9a-f]{8}-\d+$`, plan.Answer.DialogID)
			require.Equal(t, tt.index, plan.Answer.Index)
			require.Equal(t, tt.label, plan.Answer.Label)
			require.Equal(t, tt.highlighted, plan.Answer.Highlighted)
		})
	}
	plan, err := geminiPlan(t, "trust_24x80", "approve", `{}`)
	require.NoError(t, err)
	require.Nil(t, plan.Answer, "the trust dialog is not a permission dialog")
}
