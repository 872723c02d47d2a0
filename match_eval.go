package ptywright

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"ptywright/contract"
	"ptywright/internal/recache"
	"ptywright/internal/wire"
)

// compiled is a validated matcher with its regular expressions compiled once
// per wait.
type compiled struct {
	m        Matcher
	re       *regexp.Regexp
	subs     []*compiled
	searched int64 // transcript_contains: see transcript.containsSince
}

// compileMatcher compiles the tree in the field path (see compileAt).
func compileMatcher(m Matcher, path string) (*compiled, error) {
	return compileAt(m, wire.Root(path), false)
}

// compileAt validates and compiles the tree at p, spelling p only on error.
// With check it only validates, for a caller that throws the compiled
// tree away (Validate, decoding): a regular expression is parsed, which
// finds every error compiling it would, not compiled.
func compileAt(m Matcher, p *wire.Path, check bool) (*compiled, error) {
	c := &compiled{m: m}
	vpath := func() string { return p.String() + ".value" }
	switch m.Type {
	case MatchContainsText, MatchTranscriptContains:
		if m.Value == "" {
			return nil, matcherErr(vpath(), "must not be empty")
		}
	case MatchScreenRegex, MatchTranscriptRegex:
		var err error
		if check {
			_, err = syntax.Parse(m.Value, syntax.Perl) // What regexp.Compile parses with.
		} else {
			c.re, err = recache.Compile(m.Value)
		}
		if err != nil {
			return nil, matcherErr(vpath(), "invalid regular expression: %v", err)
		}
	case MatchCursorAt:
		if m.Row < 0 {
			return nil, matcherErr(vpath()+".row", "must not be negative")
		}
		if m.Col < 0 {
			return nil, matcherErr(vpath()+".col", "must not be negative")
		}
	case MatchScreenStable:
		if m.MinMs < 0 {
			return nil, matcherErr(vpath()+".min_ms", "must not be negative")
		}
	case MatchProcessExited:
	case MatchAny, MatchAll, MatchNone:
		if len(m.Matchers) == 0 {
			return nil, matcherErr(vpath(), "%s needs at least one matcher", m.Type)
		}
		if err := p.Nests(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidMatcher, err)
		}
		for i, sub := range m.Matchers {
			cs, err := compileAt(sub, p.Branch(i), check)
			if err != nil {
				return nil, err
			}
			c.subs = append(c.subs, cs)
		}
	case MatchLua:
		if m.Lua == nil {
			return nil, matcherErr(vpath(), "required for lua")
		}
		if m.Lua.Plugin == "" {
			return nil, matcherErr(vpath()+".plugin", "required")
		}
		if m.Lua.Predicate == "" {
			return nil, matcherErr(vpath()+".predicate", "required")
		}
		if len(m.Lua.Params) > 0 && !json.Valid(m.Lua.Params) {
			return nil, matcherErr(vpath()+".params", "must be valid JSON")
		}
	case "":
		return nil, matcherErr(p.String()+".type", "required")
	default:
		return nil, unknownMatcherType(p.String()+".type", m.Type)
	}
	return c, nil
}

// needsStability reports whether the tree reads how long the screen has been
// stable (screen_stable, or a lua predicate, which is told).
func (c *compiled) needsStability() bool {
	if c.m.Type == MatchScreenStable || c.m.Type == MatchLua {
		return true
	}
	for _, s := range c.subs {
		if s.needsStability() {
			return true
		}
	}
	return false
}

// exitOnly reports whether the tree looks at nothing but whether the child
// exited (process_exited, under any, all and none): its answer changes
// only when the child exits.
func (c *compiled) exitOnly() bool {
	switch c.m.Type {
	case MatchProcessExited:
		return true
	case MatchAny, MatchAll, MatchNone:
		for _, s := range c.subs {
			if !s.exitOnly() {
				return false
			}
		}
		return true
	}
	return false
}

// has reports whether the tree has a branch of type t: lua, which needs a
// predicate registry, or none, which a wait's After hold keeps from
// matching until the screen changes.
func (c *compiled) has(t MatcherType) bool {
	if c.m.Type == t {
		return true
	}
	for _, s := range c.subs {
		if s.has(t) {
			return true
		}
	}
	return false
}

// evalState is what one evaluation of a matcher reads of a session: the
// sequence and exit seen at the start, and the costly parts (the screen's
// text with its snapshot, the transcript) fetched when a branch first
// needs them, each in its own hold of the session's lock. Output that
// lands between those holds can make the transcript newer than the
// screen; the wait then looks again, since that output changed the
// sequence it watches.
type evalState struct {
	ctx        context.Context
	s          *Session
	reg        contract.PredicateRegistry
	now        time.Time
	lastChange time.Time // the last visible change
	exited     bool
	// held: the screen has not changed since the wait's After sequence, so
	// only time (screen_stable) and exit can match.
	held bool
	// echo is the input's echo the screen text leaves out (ExcludeEcho).
	echo *Echo

	plain      *string
	snap       ScreenSnapshot // raw, without cells: the screen plain is of
	transcript *string
}

// screenText is the text screen branches search, read once per look
// together with the snapshot the wait's result then carries.
func (st *evalState) screenText() string {
	if st.plain == nil {
		snap, t := st.s.screen.snapshotAndText(st.echo)
		st.snap, st.plain = snap, &t
	}
	return *st.plain
}

// snapshot is the screen the look's screen branches read, or, when none
// read it, the screen now. Raw.
func (st *evalState) snapshot() ScreenSnapshot {
	if st.plain == nil {
		return st.s.Snapshot(SnapshotOptions{Raw: true})
	}
	return st.snap
}

func (st *evalState) transcriptText() string {
	if st.transcript == nil {
		t := st.s.transcriptText()
		st.transcript = &t
	}
	return *st.transcript
}

// transcriptContains searches the transcript in place from where this
// branch's last look left off: no copy of it per look.
func (st *evalState) transcriptContains(v string, searched *int64) bool {
	found, next := st.s.transcriptContainsSince(v, *searched)
	*searched = next
	return found
}

func (st *evalState) stableFor() time.Duration { return st.now.Sub(st.lastChange) }

// eval decides the tree. When it does not match yet but will once time
// passes without change (screen_stable), wake says when to look again.
func (c *compiled) eval(st *evalState) (out *MatchOutcome, wake time.Time, err error) {
	m := c.m
	if st.held {
		switch m.Type {
		case MatchContainsText, MatchScreenRegex, MatchTranscriptContains, MatchTranscriptRegex, MatchCursorAt, MatchLua, MatchNone:
			return nil, wake, nil
		}
	}
	switch m.Type {
	case MatchContainsText:
		text := st.screenText()
		if i := strings.Index(text, m.Value); i >= 0 {
			row, col := position(text, i)
			return &MatchOutcome{Kind: m.Type, Text: m.Value, Row: &row, Col: &col}, wake, nil
		}
	case MatchScreenRegex:
		text := st.screenText()
		if loc := c.re.FindStringSubmatchIndex(text); loc != nil {
			row, col := position(text, loc[0])
			return &MatchOutcome{Kind: m.Type, Pattern: m.Value, Capture: capture(text, loc), Row: &row, Col: &col}, wake, nil
		}
	case MatchTranscriptContains:
		if st.transcriptContains(m.Value, &c.searched) {
			return &MatchOutcome{Kind: m.Type, Text: m.Value}, wake, nil
		}
	case MatchTranscriptRegex:
		text := st.transcriptText()
		if loc := c.re.FindStringSubmatchIndex(text); loc != nil {
			return &MatchOutcome{Kind: m.Type, Pattern: m.Value, Capture: capture(text, loc)}, wake, nil
		}
	case MatchCursorAt:
		st.screenText()
		if cur := st.snap.Cursor; cur.Row == m.Row && cur.Col == m.Col {
			return &MatchOutcome{Kind: m.Type, Row: intPtr(m.Row), Col: intPtr(m.Col)}, wake, nil
		}
	case MatchScreenStable:
		min := time.Duration(m.MinMs) * time.Millisecond
		if st.stableFor() >= min {
			v := m.MinMs
			return &MatchOutcome{Kind: m.Type, MinMs: &v}, wake, nil
		}
		wake = st.lastChange.Add(min)
	case MatchProcessExited:
		if st.exited {
			out := &MatchOutcome{Kind: m.Type}
			if es, ok := st.s.ExitStatus(); ok {
				out.Exit = &es
			}
			return out, wake, nil
		}
	case MatchAny:
		for _, sub := range c.subs {
			o, w, err := sub.eval(st)
			if err != nil {
				return nil, time.Time{}, err
			}
			if o != nil {
				return &MatchOutcome{Kind: m.Type, Matched: []MatchOutcome{*o}}, time.Time{}, nil
			}
			wake = earliest(wake, w)
		}
	case MatchAll:
		outs := make([]MatchOutcome, 0, len(c.subs))
		for _, sub := range c.subs {
			o, w, err := sub.eval(st)
			if err != nil {
				return nil, time.Time{}, err
			}
			if o == nil {
				if w.IsZero() {
					// Time alone cannot make this branch match: the next
					// change will wake the wait.
					return nil, time.Time{}, nil
				}
				wake = earliest(wake, w)
				continue
			}
			outs = append(outs, *o)
		}
		if len(outs) == len(c.subs) {
			return &MatchOutcome{Kind: m.Type, Matched: outs}, time.Time{}, nil
		}
	case MatchNone:
		for _, sub := range c.subs {
			o, _, err := sub.eval(st)
			if err != nil {
				return nil, time.Time{}, err
			}
			if o != nil {
				return nil, time.Time{}, nil
			}
		}
		return &MatchOutcome{Kind: m.Type}, time.Time{}, nil
	case MatchLua:
		return c.evalLua(st)
	}
	return nil, wake, nil
}

func (c *compiled) evalLua(st *evalState) (*MatchOutcome, time.Time, error) {
	lp := c.m.Lua
	if st.reg == nil {
		return nil, time.Time{}, fmt.Errorf("%w: lua predicate %s.%s: no plugin registry bound to this wait", ErrInvalidMatcher, lp.Plugin, lp.Predicate)
	}
	markers, cursor := st.s.transcriptMarks()
	screen := st.screenText() // Before st.snap is read below.
	in := contract.PredicateInput{
		Screen:        screen,
		Transcript:    st.transcriptText(),
		Sequence:      st.snap.Sequence,
		StableMs:      st.stableFor().Milliseconds(),
		ProcessExited: st.exited,
		Markers:       markers,
		Cursor:        cursor,
		Params:        lp.Params,
	}
	res, err := st.reg.EvalPredicate(st.ctx, lp.Plugin, lp.Predicate, in)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("lua predicate %s.%s: %w", lp.Plugin, lp.Predicate, err)
	}
	if !res.Matched {
		return nil, time.Time{}, nil
	}
	return &MatchOutcome{Kind: MatchLua, Plugin: lp.Plugin, Predicate: lp.Predicate, Evidence: res.Evidence, Capture: res.Capture}, time.Time{}, nil
}

func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	case b.Before(a):
		return b
	}
	return a
}

// position converts a byte offset in rows joined by "\n" to a zero-based row
// and column; the column counts characters.
func position(text string, off int) (row, col int) {
	before := text[:off]
	row = strings.Count(before, "\n")
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return row, utf8.RuneCountInString(before)
}

// capture is the first group when the pattern has one that took part,
// otherwise the whole match.
func capture(text string, loc []int) *string {
	if len(loc) >= 4 && loc[2] >= 0 {
		return strPtr(text[loc[2]:loc[3]])
	}
	return strPtr(text[loc[0]:loc[1]])
}
