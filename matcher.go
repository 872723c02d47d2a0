package ptywright

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"ptywright/contract"
	"ptywright/internal/wire"
)

// MatcherType names a kind of matcher; the values are the wire names.
type MatcherType string

// The matcher kinds.
const (
	MatchContainsText       MatcherType = "contains_text"
	MatchScreenRegex        MatcherType = "screen_regex"
	MatchTranscriptContains MatcherType = "transcript_contains"
	MatchTranscriptRegex    MatcherType = "transcript_regex"
	MatchCursorAt           MatcherType = "cursor_at"
	MatchScreenStable       MatcherType = "screen_stable"
	MatchProcessExited      MatcherType = "process_exited"
	MatchAny                MatcherType = "any"
	MatchAll                MatcherType = "all"
	// MatchNone matches when none of its matchers matches: what must have
	// gone from the screen (a dialog's text after it was answered).
	MatchNone MatcherType = "none"
	MatchLua  MatcherType = "lua"
)

// matcherTypes are the kinds, in the order an unknown kind's error lists
// them.
var matcherTypes = []MatcherType{MatchContainsText, MatchScreenRegex, MatchTranscriptContains, MatchTranscriptRegex, MatchCursorAt, MatchScreenStable, MatchProcessExited, MatchAny, MatchAll, MatchNone, MatchLua}

// unknownMatcherType is the error of a kind not in matcherTypes: it lists
// the valid ones.
func unknownMatcherType(path string, t MatcherType) error {
	names := make([]string, len(matcherTypes))
	for i, k := range matcherTypes {
		names[i] = string(k)
	}
	return matcherErr(path, "unknown matcher type %q (valid types: %s)", t, strings.Join(names, ", "))
}

// Matcher is a condition on a session, a tree whose JSON form is
// {"type": ..., "value": ...} as in the JSON-RPC reference. Build one with
// the constructors (ContainsText, All, ...); any, all and none nest at most
// 32 levels deep (a leaf alone is one), deeper trees are invalid.
type Matcher struct {
	Type MatcherType
	// Value is the text or regular expression (Go RE2 syntax) of the four
	// text kinds.
	Value string
	// Row and Col are the zero-based cursor position of cursor_at.
	Row, Col int
	// MinMs is how long screen_stable needs the screen unchanged.
	MinMs int64
	// Matchers are the branches of any and all.
	Matchers []Matcher
	// Lua is the predicate a lua matcher defers to.
	Lua *contract.LuaPredicate
}

// ContainsText matches when the screen's plain text contains s
// (case-sensitive).
func ContainsText(s string) Matcher { return Matcher{Type: MatchContainsText, Value: s} }

// ScreenRegex matches the screen's plain text, rows joined by "\n".
func ScreenRegex(re string) Matcher { return Matcher{Type: MatchScreenRegex, Value: re} }

// TranscriptContains matches when the retained transcript contains s.
func TranscriptContains(s string) Matcher { return Matcher{Type: MatchTranscriptContains, Value: s} }

// TranscriptRegex matches the retained transcript.
func TranscriptRegex(re string) Matcher { return Matcher{Type: MatchTranscriptRegex, Value: re} }

// CursorAt matches when the cursor is at row, col (zero-based).
func CursorAt(row, col int) Matcher { return Matcher{Type: MatchCursorAt, Row: row, Col: col} }

// ScreenStable matches once the screen has not changed for d.
func ScreenStable(d time.Duration) Matcher {
	return Matcher{Type: MatchScreenStable, MinMs: d.Milliseconds()}
}

// ProcessExited matches once the child has exited and its output is read.
func ProcessExited() Matcher { return Matcher{Type: MatchProcessExited} }

// Any matches when one of ms matches.
func Any(ms ...Matcher) Matcher { return Matcher{Type: MatchAny, Matchers: ms} }

// All matches when every one of ms matches at the same time.
func All(ms ...Matcher) Matcher { return Matcher{Type: MatchAll, Matchers: ms} }

// None matches when none of ms matches at the moment, e.g.
// None(ContainsText("Do you trust")) once a dialog has gone. Time-based
// branches (screen_stable) are read as they are now.
func None(ms ...Matcher) Matcher { return Matcher{Type: MatchNone, Matchers: ms} }

// Lua defers to a predicate function exported by a loaded plugin.
func Lua(plugin, predicate string, params json.RawMessage) Matcher {
	return Matcher{Type: MatchLua, Lua: &contract.LuaPredicate{Plugin: plugin, Predicate: predicate, Params: params}}
}

type matcherWire struct {
	Type  MatcherType     `json:"type"`
	Value json.RawMessage `json:"value,omitempty"`
}

type cursorWire struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

type stableWire struct {
	MinMs int64 `json:"min_ms"`
}

// MarshalJSON writes the reference's {"type","value"} form.
func (m Matcher) MarshalJSON() ([]byte, error) {
	var v any
	switch m.Type {
	case MatchContainsText, MatchScreenRegex, MatchTranscriptContains, MatchTranscriptRegex:
		v = m.Value
	case MatchCursorAt:
		v = cursorWire{m.Row, m.Col}
	case MatchScreenStable:
		v = stableWire{m.MinMs}
	case MatchAny, MatchAll, MatchNone:
		ms := m.Matchers
		if ms == nil {
			ms = []Matcher{}
		}
		v = ms
	case MatchLua:
		v = m.Lua
	}
	w := matcherWire{Type: m.Type}
	if v != nil {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		w.Value = raw
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the {"type","value"} form strictly: unknown fields,
// wrong types and unknown kinds are errors naming the field.
func (m *Matcher) UnmarshalJSON(data []byte) error {
	parsed, err := parseMatcher(wire.DecodeTree(data), wire.Root("matcher"))
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

func matcherErr(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidMatcher, path, fmt.Sprintf(format, args...))
}

// strictDecode decodes one JSON value, refusing unknown fields and
// trailing data.
func strictDecode(data []byte, v any) error { return wire.StrictDecode(data, v) }

// parseMatcher reads the tree decoded once (see wire.Node).
func parseMatcher(n *wire.Node, p *wire.Path) (Matcher, error) {
	if n.Err != nil {
		return Matcher{}, matcherErr(p.String(), "%v", n.Err)
	}
	w := matcherWire{Type: MatcherType(n.Type), Value: n.Value}
	m := Matcher{Type: w.Type}
	hasValue := len(w.Value) > 0 && string(w.Value) != "null"
	vpath := func() string { return p.String() + ".value" }
	switch w.Type {
	case MatchContainsText, MatchScreenRegex, MatchTranscriptContains, MatchTranscriptRegex:
		if !hasValue {
			return Matcher{}, matcherErr(vpath(), "required for %s", w.Type)
		}
		if err := json.Unmarshal(w.Value, &m.Value); err != nil {
			return Matcher{}, matcherErr(vpath(), "must be a string")
		}
	case MatchCursorAt:
		var c struct {
			Row *int `json:"row"`
			Col *int `json:"col"`
		}
		if !hasValue {
			return Matcher{}, matcherErr(vpath(), "required for cursor_at")
		}
		if err := strictDecode(w.Value, &c); err != nil {
			return Matcher{}, matcherErr(vpath(), "%v", err)
		}
		if c.Row == nil || c.Col == nil {
			return Matcher{}, matcherErr(vpath(), "needs row and col")
		}
		m.Row, m.Col = *c.Row, *c.Col
	case MatchScreenStable:
		var st struct {
			MinMs *int64 `json:"min_ms"`
		}
		if !hasValue {
			return Matcher{}, matcherErr(vpath(), "required for screen_stable")
		}
		if err := strictDecode(w.Value, &st); err != nil {
			return Matcher{}, matcherErr(vpath(), "%v", err)
		}
		if st.MinMs == nil {
			return Matcher{}, matcherErr(vpath()+".min_ms", "required")
		}
		m.MinMs = *st.MinMs
	case MatchProcessExited:
		if hasValue {
			return Matcher{}, matcherErr(vpath(), "process_exited takes no value")
		}
	case MatchAny, MatchAll, MatchNone:
		if !hasValue {
			return Matcher{}, matcherErr(vpath(), "required for %s", w.Type)
		}
		if !n.IsArray {
			return Matcher{}, matcherErr(vpath(), "must be an array of matchers")
		}
		if err := p.Nests(); err != nil {
			return Matcher{}, fmt.Errorf("%w: %w", ErrInvalidMatcher, err)
		}
		for i, item := range n.Items {
			sub, err := parseMatcher(item, p.Branch(i))
			if err != nil {
				return Matcher{}, err
			}
			m.Matchers = append(m.Matchers, sub)
		}
	case MatchLua:
		if !hasValue {
			return Matcher{}, matcherErr(vpath(), "required for lua")
		}
		var lp contract.LuaPredicate
		if err := strictDecode(w.Value, &lp); err != nil {
			return Matcher{}, matcherErr(vpath(), "%v", err)
		}
		m.Lua = &lp
	case "":
		return Matcher{}, matcherErr(p.String()+".type", "required")
	default:
		return Matcher{}, unknownMatcherType(p.String()+".type", w.Type)
	}
	if p.Depth() > 1 { // the root compiles the whole tree, once
		return m, nil
	}
	_, err := compileAt(m, p, true)
	return m, err
}

// Validate reports the first problem in the tree: an unknown type, an invalid
// regular expression, a negative min_ms or cursor position, an empty any/all,
// or an incomplete lua predicate.
func (m Matcher) Validate() error {
	_, err := compileAt(m, wire.Root("matcher"), true)
	return err
}

// MatchOutcome says which branch of a matcher fired and what it saw.
type MatchOutcome struct {
	Kind MatcherType `json:"kind"`
	// Pattern is the regular expression of a regex kind.
	Pattern string `json:"pattern,omitempty"`
	// Capture is the first capture group of a regex match, or the whole
	// match when the pattern has no group; for lua, the predicate's capture.
	Capture *string `json:"capture,omitempty"`
	// Text is the searched text of contains_text / transcript_contains.
	Text string `json:"text,omitempty"`
	// Row and Col locate a screen match or the cursor (zero-based).
	Row *int `json:"row,omitempty"`
	Col *int `json:"col,omitempty"`
	// MinMs is screen_stable's window.
	MinMs *int64 `json:"min_ms,omitempty"`
	// Matched holds the branches that fired, for any and all.
	Matched []MatchOutcome `json:"matched,omitempty"`
	// Exit says how the child ended, for process_exited.
	Exit *ExitStatus `json:"exit,omitempty"`
	// Plugin, Predicate and Evidence describe a lua predicate's verdict.
	Plugin    string `json:"plugin,omitempty"`
	Predicate string `json:"predicate,omitempty"`
	Evidence  any    `json:"evidence,omitempty"`
}

// redacted returns a copy of o with what it quotes from the screen
// redacted, in every branch: captures, searched text, pattern and lua
// evidence. nil r means DefaultRedactor; a nil o, or a redactor that hides
// nothing, returns o itself.
//
// A secret inside a pattern in escaped form (`sk\-abc`) is not recognised:
// a face that shows outcomes to a reader who did not write the matcher
// should leave patterns out.
func (o *MatchOutcome) redacted(r *Redactor) *MatchOutcome {
	if o == nil || !r.Enabled() {
		return o
	}
	out := *o
	if o.Capture != nil {
		out.Capture = strPtr(r.Redact(*o.Capture))
	}
	out.Text = r.Redact(o.Text)
	out.Pattern = r.Redact(o.Pattern)
	if o.Evidence != nil {
		out.Evidence = redactValue(o.Evidence, r, 0)
	}
	if o.Matched != nil {
		out.Matched = make([]MatchOutcome, len(o.Matched))
		for i := range o.Matched {
			out.Matched[i] = *o.Matched[i].redacted(r)
		}
	}
	return &out
}

func intPtr(v int) *int       { return &v }
func strPtr(v string) *string { return &v }
