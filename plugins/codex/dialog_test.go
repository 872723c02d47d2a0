package codex_test

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

// TestCodexDialogShape: every approval dialog fixture reports
// metadata.dialog in the shape every built-in plugin shares (tool kind,
// what it acts on, the options with their keys and the highlighted one),
// and no other screen reports one: not a dialog quoted in an answer
// either.
func TestCodexDialogShape(t *testing.T) {
	texts, err := filepath.Glob(filepath.Join(codexFixtureDir, "*.txt"))
	require.NoError(t, err)
	dialogs := 0
	for _, path := range texts {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		raw, err := os.ReadFile(filepath.Join(codexFixtureDir, name+".expected.json"))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		var exp codexExpected
		require.NoError(t, json.Unmarshal(raw, &exp))
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		st, err := codexExtension(t).Classify(t.Context(), codexFixtureContext(string(text), codexFixtureCols(t, name), exp))
		require.NoError(t, err)
		d, ok := ptywright.DialogOf(st)
		if exp.Rule != "codex.approval" {
			require.False(t, ok, "%s: state %s reports a dialog %+v", name, st.State, d)
			continue
		}
		require.True(t, ok, "%s: no metadata.dialog", name)
		dialogs++
		require.Equal(t, "permission", d.Kind, name)
		require.Equal(t, d.ID, st.Metadata["dialog_id"], name)
		require.Contains(t, []string{"shell", "edit", "permissions", "other"}, d.Tool, name)
		require.NotEmpty(t, d.Options, name)
		var indexes []int
		for _, o := range d.Options {
			require.NotEmpty(t, o.Label, "%s: option %d", name, o.Index)
			indexes = append(indexes, o.Index)
		}
		require.True(t, slices.Contains(indexes, d.SelectedIndex), "%s: highlight %d not among %v", name, d.SelectedIndex, indexes)
		require.Equal(t, "y", d.Options[0].Key, name)
		switch d.Tool {
		case "shell":
			require.NotEmpty(t, d.Command, name)
		case "edit":
			require.NotEmpty(t, d.Path, name)
		}
	}
	require.GreaterOrEqual(t, dialogs, 8)
}

// TestCodexDialogInstances: a dialog's id stays while it is up (read
// again, or with the highlight moved) and changes for the next dialog,
// even one that asks the same once the composer was seen between them.
func TestCodexDialogInstances(t *testing.T) {
	ext := codexExtension(t)
	id := func(name string) string {
		st := codexClassify(t, ext, codexFixtureText(t, name), "", "")
		d, ok := ptywright.DialogOf(st)
		if !ok {
			return ""
		}
		return d.ID
	}
	first := id("approval_exec_24x80")
	require.NotEmpty(t, first)
	require.Equal(t, first, id("approval_exec_24x80"), "read again")
	require.Equal(t, first, id("approval_exec_option2_24x80"), "the highlight moved")
	require.Empty(t, id("ready_24x80"))
	second := id("approval_exec_24x80")
	require.NotEqual(t, first, second, "the same question after the composer is another dialog")
	third := id("approval_patch_24x80")
	require.NotEqual(t, second, third)
}

// TestCodexAnswersNameTheirOption: the answers to an approval dialog name
// the dialog and the option their keys choose, for the host's check at the
// moment of the key.
func TestCodexAnswersNameTheirOption(t *testing.T) {
	esc := ptywright.Press(ptywright.KeyEscape)
	tests := []struct {
		name, fixture, intent, params string
		want                          []ptywright.Action
		index, highlighted            int
		label, errHas                 string
	}{
		{"approve: the (y) option", "approval_exec_24x80", "approve", `{}`, []ptywright.Action{ptywright.Text("y")}, 1, 0, "Yes, proceed", ""},
		{"approve_always on a command: (p)", "approval_exec_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("p")}, 2, 0,
			"Yes, and don't ask again for commands that start with `printf 'approved\\n' > approved.txt`", ""},
		{"approve_always on edits: (a)", "approval_patch_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("a")}, 2, 0,
			"Yes, and don't ask again for these files", ""},
		{"approve_always on permissions: (a)", "approval_permissions_24x80", "approve_always", `{}`, []ptywright.Action{ptywright.Text("a")}, 3, 0,
			"Yes, grant these permissions for this session", ""},
		{"deny: Esc is the (esc) option", "approval_exec_24x80", "deny", `{}`, []ptywright.Action{esc}, 3, 0, "No, and tell Codex what to do differently", ""},
		{"deny where no option is Esc's", "approval_permissions_24x80", "deny", `{}`, []ptywright.Action{esc}, 0, 0, "", ""},
		{"choose_option by label", "approval_patch_24x80", "choose_option", `{"label":"these files"}`, []ptywright.Action{ptywright.Text("2")}, 2, 0,
			"Yes, and don't ask again for these files", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := codexPlan(t, tt.fixture, tt.intent, tt.params)
			if tt.errHas != "" {
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
