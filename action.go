package ptywright

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"ptywright/internal/wire"
)

// ActionType is the "type" of an action on the wire.
type ActionType string

// Action types. interrupt, eof and kill carry no value.
const (
	ActionText           ActionType = "text"
	ActionPaste          ActionType = "paste"
	ActionBracketedPaste ActionType = "bracketed_paste"
	ActionKey            ActionType = "key"
	ActionResize         ActionType = "resize"
	ActionInterrupt      ActionType = "interrupt"
	ActionEOF            ActionType = "eof"
	ActionKill           ActionType = "kill"
	ActionSignal         ActionType = "signal"
	ActionMarkTranscript ActionType = "mark_transcript"
)

var actionTypes = [...]ActionType{
	ActionText, ActionPaste, ActionBracketedPaste, ActionKey, ActionResize,
	ActionInterrupt, ActionEOF, ActionKill, ActionSignal, ActionMarkTranscript,
}

// Signal names a signal the Session can deliver to the child's process group.
// Names are portable strings rather than syscall.Signal so actions stay
// serialisable and the package builds where those signals do not exist.
type Signal string

// Signals a "signal" action may carry.
const (
	SignalInt  Signal = "int"
	SignalTerm Signal = "term"
	SignalHup  Signal = "hup"
	SignalQuit Signal = "quit"
	SignalKill Signal = "kill"
	SignalUsr1 Signal = "usr1"
	SignalUsr2 Signal = "usr2"
)

// signalTable is every valid signal, in the order errors list them.
var signalTable = [...]Signal{SignalInt, SignalTerm, SignalHup, SignalQuit, SignalKill, SignalUsr1, SignalUsr2}

// ParseSignal accepts exactly the lower-case names of the Signal constants;
// the error wraps ErrUnknownSignal and lists them.
func ParseSignal(name string) (Signal, error) {
	if slices.Contains(signalTable[:], Signal(name)) {
		return Signal(name), nil
	}
	names := make([]string, len(signalTable))
	for i, s := range signalTable {
		names[i] = string(s)
	}
	return "", fmt.Errorf("%w %q (valid signals: %s)", ErrUnknownSignal, name, strings.Join(names, ", "))
}

// Action is one step a client or plugin asks a Session to perform. Only the
// field matching Type is meaningful; Validate rejects an Action that sets any
// other, so a plan built by hand cannot silently drop data. Build actions with
// the constructors (Text, Press, Resize, ...).
//
// Its JSON form is {"type": ..., "value": ...} as in the JSON-RPC reference.
type Action struct {
	Type   ActionType
	Text   string // text, paste, bracketed_paste
	Key    Key    // key
	Size   Size   // resize
	Signal Signal // signal
	Label  string // mark_transcript
}

// Text types s as if entered on a keyboard; bytes are written verbatim.
func Text(s string) Action { return Action{Type: ActionText, Text: s} }

// Paste writes s verbatim, for programs that have not enabled bracketed paste.
func Paste(s string) Action { return Action{Type: ActionPaste, Text: s} }

// BracketedPaste wraps s in CSI 200~ ... CSI 201~ so a TUI that enabled
// bracketed paste treats it as one paste and a following Enter as a submit.
func BracketedPaste(s string) Action { return Action{Type: ActionBracketedPaste, Text: s} }

// Press sends one named key.
func Press(k Key) Action { return Action{Type: ActionKey, Key: k} }

// Resize changes the terminal size in cells, with pixel dimensions unknown;
// Action{Type: ActionResize, Size: s} gives them too.
func Resize(rows, cols int) Action {
	return Action{Type: ActionResize, Size: Size{Rows: rows, Cols: cols}}
}

// Interrupt sends Ctrl-C (0x03) through the PTY, so the line discipline
// decides what it means, exactly as for a user at the keyboard.
func Interrupt() Action { return Action{Type: ActionInterrupt} }

// EOF sends Ctrl-D (0x04) through the PTY.
func EOF() Action { return Action{Type: ActionEOF} }

// Kill asks the Session to SIGKILL the child's process group.
func Kill() Action { return Action{Type: ActionKill} }

// SendSignal asks the Session to deliver s to the child's process group,
// bypassing the line discipline.
func SendSignal(s Signal) Action { return Action{Type: ActionSignal, Signal: s} }

// MarkTranscript records the current transcript cursor under label, so a later
// wait or read can start from this point.
func MarkTranscript(label string) Action { return Action{Type: ActionMarkTranscript, Label: label} }

func actionError(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...), Err: ErrInvalidAction}
}

func unknownTypeError(t ActionType) *FieldError {
	names := make([]string, len(actionTypes))
	for i, at := range actionTypes {
		names[i] = string(at)
	}
	return actionError("action.type", "unknown action type %q (valid types: %s)", t, strings.Join(names, ", "))
}

// Validate checks that Type is known, that its payload is valid (known key,
// size in range, known signal, non-empty label) and that no field belonging
// to another type is set. Errors are *FieldError wrapping ErrInvalidAction,
// named by their wire path.
func (a Action) Validate() error {
	var uses string // the single payload field Type uses
	switch a.Type {
	case ActionText, ActionPaste, ActionBracketedPaste:
		uses = "Text"
	case ActionKey:
		uses = "Key"
		if _, err := ParseKey(string(a.Key)); err != nil {
			return &FieldError{Field: "action.value", Reason: err.Error(), Err: errors.Join(ErrInvalidAction, ErrUnknownKey)}
		}
	case ActionResize:
		uses = "Size"
		// The session it reaches holds it to its own cell budget.
		if err := a.Size.ValidateCells(sideBoundsOnly); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return &FieldError{Field: "action.value." + fe.Field, Reason: fe.Reason, Err: errors.Join(ErrInvalidAction, ErrInvalidSize)}
			}
			return &FieldError{Field: "action.value", Reason: err.Error(), Err: errors.Join(ErrInvalidAction, ErrInvalidSize)}
		}
	case ActionInterrupt, ActionEOF, ActionKill:
	case ActionSignal:
		uses = "Signal"
		if _, err := ParseSignal(string(a.Signal)); err != nil {
			return &FieldError{Field: "action.value", Reason: err.Error(), Err: errors.Join(ErrInvalidAction, ErrUnknownSignal)}
		}
	case ActionMarkTranscript:
		uses = "Label"
		if a.Label == "" {
			return actionError("action.value.label", "must not be empty")
		}
	case "":
		return actionError("action.type", "required")
	default:
		return unknownTypeError(a.Type)
	}
	// A payload in the wrong field is almost always a construction bug (e.g.
	// Action{Type: ActionKey, Text: "enter"}); refuse rather than drop it.
	set := []struct {
		name string
		set  bool
	}{
		{"Text", a.Text != ""},
		{"Key", a.Key != ""},
		{"Size", a.Size != Size{}},
		{"Signal", a.Signal != ""},
		{"Label", a.Label != ""},
	}
	for _, f := range set {
		if f.set && f.name != uses {
			return actionError("action", "field %s must be empty for type %q", f.name, a.Type)
		}
	}
	return nil
}

// Bracketed paste markers (xterm DECSET 2004).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Input returns the bytes to write to the PTY for input actions (text, paste,
// bracketed_paste, key, interrupt = 0x03, eof = 0x04) and ok=false for the
// others (resize, kill, signal, mark_transcript), which the Session performs
// itself. applicationCursor is the screen's DECCKM mode, used for keys.
//
// A bracketed paste payload has any embedded end marker (ESC[201~) removed:
// otherwise the text after it would reach the program as typed input, which
// is how paste-injection attacks work. It does not validate; call Validate
// first (an unknown key yields ok=true with no bytes).
func (a Action) Input(applicationCursor bool) (b []byte, ok bool) {
	switch a.Type {
	case ActionText, ActionPaste:
		return []byte(a.Text), true
	case ActionBracketedPaste:
		body := strings.ReplaceAll(a.Text, pasteEnd, "")
		b = make([]byte, 0, len(pasteStart)+len(body)+len(pasteEnd))
		b = append(b, pasteStart...)
		b = append(b, body...)
		b = append(b, pasteEnd...)
		return b, true
	case ActionKey:
		return a.Key.Bytes(applicationCursor), true
	case ActionInterrupt:
		return []byte{0x03}, true
	case ActionEOF:
		return []byte{0x04}, true
	}
	return nil, false
}

type markValue struct {
	Label string `json:"label"`
}

// MarshalJSON writes the wire form. It validates first so that a JSON action
// this package emits always decodes again.
func (a Action) MarshalJSON() ([]byte, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	var value any
	switch a.Type {
	case ActionText, ActionPaste, ActionBracketedPaste:
		value = a.Text
	case ActionKey:
		value = a.Key
	case ActionResize:
		value = a.Size
	case ActionSignal:
		value = a.Signal
	case ActionMarkTranscript:
		value = markValue{Label: a.Label}
	}
	wire := struct {
		Type  ActionType `json:"type"`
		Value any        `json:"value,omitempty"`
	}{a.Type, value}
	return json.Marshal(wire)
}

// UnmarshalJSON decodes the wire form strictly: field names are exact (no case
// folding), unknown fields at either level are rejected, value must be present
// exactly when the type needs one (null counts as absent), and the result must
// pass Validate. Errors are *FieldError wrapping ErrInvalidAction.
func (a *Action) UnmarshalJSON(data []byte) error {
	fields, err := decodeObject(data, "action")
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(fields) {
		if name != "type" && name != "value" {
			return actionError("action."+name, "unknown field (allowed: type, value)")
		}
	}
	rawType, ok := fields["type"]
	if !ok || isNull(rawType) {
		return actionError("action.type", "required")
	}
	var typ string
	if err := json.Unmarshal(rawType, &typ); err != nil {
		return actionError("action.type", "must be a string, got %s", wire.Kind(rawType))
	}
	rawValue, hasValue := fields["value"]
	if hasValue && isNull(rawValue) {
		hasValue = false
	}

	out := Action{Type: ActionType(typ)}
	switch out.Type {
	case ActionText, ActionPaste, ActionBracketedPaste:
		if out.Text, err = requireString(rawValue, hasValue, "action.value"); err != nil {
			return err
		}
	case ActionKey:
		s, err := requireString(rawValue, hasValue, "action.value")
		if err != nil {
			return err
		}
		out.Key = Key(s)
	case ActionSignal:
		s, err := requireString(rawValue, hasValue, "action.value")
		if err != nil {
			return err
		}
		out.Signal = Signal(s)
	case ActionResize:
		if !hasValue {
			return actionError("action.value", "required for type %q: {\"rows\": N, \"cols\": N}", typ)
		}
		if out.Size, err = decodeSize(rawValue, "action.value"); err != nil {
			return err
		}
	case ActionMarkTranscript:
		if !hasValue {
			return actionError("action.value", "required for type %q: {\"label\": \"...\"}", typ)
		}
		obj, err := decodeObject(rawValue, "action.value")
		if err != nil {
			return err
		}
		for _, name := range sortedKeys(obj) {
			if name != "label" {
				return actionError("action.value."+name, "unknown field (allowed: label)")
			}
		}
		rawLabel, ok := obj["label"]
		if out.Label, err = requireString(rawLabel, ok && !isNull(rawLabel), "action.value.label"); err != nil {
			return err
		}
	case ActionInterrupt, ActionEOF, ActionKill:
		if hasValue {
			return actionError("action.value", "not allowed for type %q", typ)
		}
	default:
		return unknownTypeError(out.Type)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*a = out
	return nil
}
