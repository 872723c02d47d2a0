package ptywright

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Dialog is the shape a plugin reports for the dialog on screen, as its
// state's metadata.dialog (the built-in claude-code and codex plugins do
// for every permission dialog). Answers are checked against it at the
// moment of the key (see DialogAnswer); a policy and an audit log read it.
type Dialog struct {
	// Kind is what the dialog asks: "permission" for a tool's permission.
	Kind string `json:"kind"`
	// ID names one instance of the dialog: stable while it stays on screen
	// (a moved highlight keeps it), different for the next dialog, even
	// one that asks the same.
	ID string `json:"id"`
	// Tool is the tool kind: "shell", "edit", "write", "read",
	// "web_fetch", "mcp", "permissions" or "other"; ToolName the program's
	// own name for it ("Bash", "exec", ...).
	Tool     string `json:"tool,omitempty"`
	ToolName string `json:"tool_name,omitempty"`
	// What the tool would act on, as far as the dialog shows it.
	Command string `json:"command,omitempty"`
	Path    string `json:"path,omitempty"`
	URL     string `json:"url,omitempty"`
	// MCPServer and MCPTool name an MCP tool's server and tool.
	MCPServer string `json:"mcp_server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	// Options are the choices in the order shown; SelectedIndex is the
	// index of the highlighted one (0 when none is).
	Options       []DialogOption `json:"options"`
	SelectedIndex int            `json:"selected_index,omitempty"`
}

// DialogOption is one of a Dialog's choices.
type DialogOption struct {
	// Index is its number (1-based, as drawn when numbered).
	Index int `json:"index"`
	// Label is its text without the number and key hint.
	Label string `json:"label"`
	// Key is the shortcut the program names for it ("y", "esc"), if any.
	Key string `json:"key,omitempty"`
}

// Option returns the option numbered index.
func (d *Dialog) Option(index int) (DialogOption, bool) {
	for _, o := range d.Options {
		if o.Index == index {
			return o, true
		}
	}
	return DialogOption{}, false
}

// DialogOf returns the dialog a state reports (metadata.dialog), if any.
func DialogOf(st StateSnapshot) (*Dialog, bool) {
	v, ok := st.Metadata["dialog"]
	if !ok || v == nil {
		return nil, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var d Dialog
	if json.Unmarshal(raw, &d) != nil || d.ID == "" {
		return nil, false
	}
	return &d, true
}

// DialogAnswer is what an answering plan (approve, approve_always, deny,
// choose_option) means on the dialog it was planned on: the host checks
// it against the dialog on screen at the moment of the key and sends
// nothing when they differ (a DialogMismatchError).
type DialogAnswer struct {
	// DialogID is the dialog's id when the plan was made.
	DialogID string `json:"dialog_id"`
	// Index and Label name the option the keys choose (Index 0: the keys
	// choose no option, e.g. Escape on a dialog without an "esc" option).
	Index int    `json:"index,omitempty"`
	Label string `json:"label,omitempty"`
	// Highlighted is set when the keys act on the highlighted option
	// (Enter, or arrows counted from it): the highlight must then still
	// be on Highlighted.
	Highlighted int `json:"highlighted,omitempty"`
}

// DialogMismatchError is ErrDialogMismatch: an answer's dialog is not the
// one on screen at the moment of the key, or the option it would choose
// is not the one it means. Nothing was written.
type DialogMismatchError struct {
	// Reason says what differed.
	Reason string
	// State is the state on screen now; Dialog the dialog it reports
	// (nil when none), redacted like every read.
	State  string
	Dialog *Dialog
}

// Error says what differed.
func (e *DialogMismatchError) Error() string {
	return fmt.Sprintf("%v: %s; nothing was written", ErrDialogMismatch, e.Reason)
}

// Unwrap makes errors.Is(err, ErrDialogMismatch) match.
func (e *DialogMismatchError) Unwrap() error { return ErrDialogMismatch }

// answerParams are the params of an answering intent the host checks
// itself, whatever the plugin: the dialog the caller saw, and the option
// it means.
type answerParams struct {
	DialogID *string `json:"dialog_id"`
	Label    *string `json:"label"`
	Index    *int    `json:"index"`
}

// labelMatches says whether the caller's label names option label: equal,
// or a part of it ("Yes, and don't ask again" names "Yes, and don’t ask
// again for: touch …"), as the plugins find an option by label, ignoring
// case, surrounding space and the typographic apostrophe the programs
// draw for "'".
func labelMatches(want, label string) bool {
	w := normalLabel(want)
	return w != "" && strings.Contains(normalLabel(label), w)
}

func normalLabel(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "\u2019", "'"))
}

// checkAnswer checks a plan about to be written against the screen's
// state st: the dialog the caller saw (params.dialog_id), the dialog the
// plan was made on and the option it chooses (plan.Answer), and the
// option the caller means (params.label, params.index). redacted gives the
// state as a read would show it, for the error.
func checkAnswer(answer *DialogAnswer, params []byte, st StateSnapshot, redacted func() StateSnapshot) error {
	var p answerParams
	if len(params) > 0 {
		_ = json.Unmarshal(params, &p) // the plugin has checked the params' shape
	}
	if answer == nil && p.DialogID == nil {
		return nil
	}
	live, ok := DialogOf(st)
	fail := func(format string, args ...any) error {
		e := &DialogMismatchError{Reason: fmt.Sprintf(format, args...), State: st.State}
		if r := redacted(); r.State != "" {
			e.State = r.State
			if d, ok := DialogOf(r); ok {
				e.Dialog = d
			}
		}
		return e
	}
	if !ok {
		want := ""
		if answer != nil {
			want = answer.DialogID
		}
		if p.DialogID != nil {
			want = *p.DialogID
		}
		return fail("no dialog on screen (state %s) where dialog %q was answered", st.State, want)
	}
	if p.DialogID != nil && *p.DialogID != live.ID {
		return fail("the dialog on screen is %q, not %q", live.ID, *p.DialogID)
	}
	if answer == nil {
		return nil
	}
	if answer.DialogID != "" && answer.DialogID != live.ID {
		return fail("the dialog changed after the plan: %q is on screen, the keys were for %q", live.ID, answer.DialogID)
	}
	if p.Index != nil && *p.Index != answer.Index {
		return fail("the keys choose option %d (%q), not option %d", answer.Index, answer.Label, *p.Index)
	}
	if p.Label != nil && !labelMatches(*p.Label, answer.Label) {
		return fail("the keys choose option %d (%q), not one labelled %q", answer.Index, answer.Label, *p.Label)
	}
	if answer.Index > 0 {
		o, ok := live.Option(answer.Index)
		if !ok {
			return fail("dialog %q has no option %d (%q) now", live.ID, answer.Index, answer.Label)
		}
		if o.Label != answer.Label {
			return fail("option %d of dialog %q is %q now, not %q", answer.Index, live.ID, o.Label, answer.Label)
		}
	}
	if answer.Highlighted > 0 && live.SelectedIndex != answer.Highlighted {
		return fail("the highlight of dialog %q is on option %d now, not %d", live.ID, live.SelectedIndex, answer.Highlighted)
	}
	return nil
}
