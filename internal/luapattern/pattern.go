// Package luapattern implements Lua 5.2 patterns (reference manual §6.4.1)
// in pure Go, byte for byte as lstrlib.c of Lua 5.2 matches them, and
// installs string.find, string.match, string.gmatch and string.gsub into a
// go-lua state (ptywright/internal/golua), which ships without them.
//
// Positions are Lua's: 1-based, inclusive, negative init counting back
// from the end of the subject. Matching is byte-based and uses the C
// locale's character classes, so bytes >= 0x80 are in no class.
//
// Like Lua, the matcher backtracks and a pathological pattern can take
// time exponential in its number of quantifiers. Install bounds only its
// recursion depth (MaxMatchDepth); InstallWithOptions also bounds its work,
// per call (Options.MaxSteps) or against a host's own budget
// (Options.Budget).
package luapattern

import (
	"strconv"
	"strings"

	lua "ptywright/internal/golua"
)

// Capture is one value a pattern produced: the text of a "(...)" capture,
// or the position a "()" captured.
type Capture struct {
	// Text is the captured substring; empty for a position capture.
	Text string
	// Pos is the 1-based subject position a "()" captured, as Lua reports
	// it; 0 for a substring capture.
	Pos int
}

// IsPosition reports whether c came from a position capture "()".
func (c Capture) IsPosition() bool { return c.Pos > 0 }

// String returns the capture as Lua's tostring would show it.
func (c Capture) String() string {
	if c.IsPosition() {
		return strconv.Itoa(c.Pos)
	}
	return c.Text
}

// Find returns the first match of pattern in s at or after init, with
// string.find's semantics: start and end are the 1-based inclusive bounds
// of the match and caps holds only the pattern's explicit captures (nil if
// it has none). init is 1-based; a negative init counts back from the end,
// one below 1 is 1, and one beyond len(s)+1 finds nothing. A pattern with
// no special characters is searched for as plain text, as Lua does.
func Find(s, pattern string, init int) (start, end int, caps []Capture, ok bool, err error) {
	return find(s, pattern, init, 0)
}

func find(s, pattern string, init, maxSteps int) (start, end int, caps []Capture, ok bool, err error) {
	from, ok := startOffset(init, len(s))
	if !ok {
		return 0, 0, nil, false, nil
	}
	if !strings.ContainsAny(pattern, specials) {
		i := strings.Index(s[from:], pattern)
		if i < 0 {
			return 0, 0, nil, false, nil
		}
		return from + i + 1, from + i + len(pattern), nil, true, nil
	}
	m, anchor := newMatcher(s, pattern, maxSteps)
	st, e, err := m.search(from, anchor)
	if err != nil || st < 0 {
		return 0, 0, nil, false, err
	}
	if caps, err = m.allCaptures(st, e, false); err != nil {
		return 0, 0, nil, false, err
	}
	return st + 1, e, caps, true, nil
}

// Match returns the captures of the first match of pattern in s at or
// after init, with string.match's semantics: a pattern without captures
// yields the whole match as its only capture. init is as for Find.
func Match(s, pattern string, init int) (caps []Capture, ok bool, err error) {
	from, ok := startOffset(init, len(s))
	if !ok {
		return nil, false, nil
	}
	m, anchor := newMatcher(s, pattern, 0)
	st, e, err := m.search(from, anchor)
	if err != nil || st < 0 {
		return nil, false, err
	}
	if caps, err = m.allCaptures(st, e, true); err != nil {
		return nil, false, err
	}
	return caps, true, nil
}

// Iterator walks the successive matches of a pattern, as string.gmatch
// does. The zero value is not usable; call GMatch.
type Iterator struct {
	m   *matcher
	pos int // subject offset where the next search starts
}

// GMatch returns an iterator over the matches of pattern in s. As in Lua
// 5.2, a leading '^' is not an anchor here but a literal '^', and after an
// empty match the next search starts one byte further on.
func GMatch(s, pattern string) *Iterator {
	m := &matcher{src: s, pat: pattern, orig: pattern}
	m.startCall()
	return &Iterator{m: m}
}

// Next returns the captures of the next match (the whole match when the
// pattern has no captures), or ok == false when there are no more.
func (it *Iterator) Next() (caps []Capture, ok bool, err error) {
	start, end, err := it.m.search(it.pos, false)
	if err != nil || start < 0 {
		return nil, false, err
	}
	it.pos = end
	if end == start { // empty match: move on at least one byte
		it.pos++
	}
	if caps, err = it.m.allCaptures(start, end, true); err != nil {
		return nil, false, err
	}
	return caps, true, nil
}

// Gsub returns a copy of s in which the first n matches of pattern (all of
// them if n < 0) are replaced by repl, and the number of matches. In repl,
// %0 stands for the whole match, %1-%9 for a capture (%1 is the whole
// match when the pattern has none) and %% for a '%'.
func Gsub(s, pattern, repl string, n int) (string, int, error) {
	m, anchor := newMatcher(s, pattern, 0)
	return gsub(m, anchor, n, func(b *strings.Builder, m *matcher, start, end int) error {
		return m.expand(b, repl, start, end)
	})
}

// bytesPerStep is how many replacement bytes gsub charges as one step.
const bytesPerStep = 16

// replacer appends the replacement for the match src[start:end] to b.
type replacer func(b *strings.Builder, m *matcher, start, end int) error

// gsub is Lua 5.2's gsub loop: text between matches is copied, and after
// an empty match one more byte is copied before the search goes on.
func gsub(m *matcher, anchor bool, n int, add replacer) (string, int, error) {
	s := m.src
	var b strings.Builder
	m.reserve(&b, len(s))
	b.Grow(len(s))
	src, count := 0, 0
	for n < 0 || count < n {
		start, end, err := m.search(src, anchor)
		if err != nil {
			return "", 0, err
		}
		if start < 0 {
			break
		}
		m.reserve(&b, start-src)
		b.WriteString(s[src:start])
		count++
		before := b.Len()
		if err := add(&b, m, start, end); err != nil {
			return "", 0, err
		}
		// Replacements are not matcher work, but a small pattern with a
		// large replacement can write far more than it matches.
		m.spend((b.Len() - before) / bytesPerStep)
		src = end
		if end == start { // empty match: copy one byte and move on
			if start == len(s) {
				break
			}
			m.reserve(&b, 1)
			b.WriteByte(s[start])
			src++
		}
		if anchor {
			break
		}
	}
	m.reserve(&b, len(s)-src)
	b.WriteString(s[src:])
	return b.String(), count, nil
}

// reserve tells the memory budget, if any, before b grows to take n more
// bytes: what it will allocate is at most twice its capacity, or what is
// needed.
func (m *matcher) reserve(b *strings.Builder, n int) {
	if need := b.Len() + n; need > b.Cap() && m.meter != nil && m.meter.memory != nil {
		m.meter.memory.Alloc(m.meter.l, max(need, 2*b.Cap()))
	}
}

// expand appends the replacement string repl for the match src[start:end].
func (m *matcher) expand(b *strings.Builder, repl string, start, end int) error {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != escape {
			m.reserve(b, 1)
			b.WriteByte(c)
			continue
		}
		i++
		var d byte // NUL when '%' ends repl, as C reads it
		if i < len(repl) {
			d = repl[i]
		}
		switch {
		case d == escape:
			m.reserve(b, 1)
			b.WriteByte(d)
		case !isDigit(d):
			return &Error{Pattern: m.orig, Msg: msgInvalidPercent, Kind: ErrInvalidReplacement}
		case d == '0':
			m.reserve(b, end-start)
			b.WriteString(m.src[start:end])
		default:
			c, err := m.oneCapture(int(d-'1'), start, end)
			if err != nil {
				return err
			}
			cs := c.String()
			m.reserve(b, len(cs))
			b.WriteString(cs)
		}
	}
	return nil
}

// startOffset turns a Lua init into a 0-based subject offset; ok is false
// when init lies beyond len+1, where nothing can match.
func startOffset(init, length int) (int, bool) {
	switch {
	case init < -length: // not -init > length: -math.MinInt overflows
		init = 1
	case init < 0:
		init = length + init + 1
	case init == 0:
		init = 1
	}
	if init > length+1 {
		return 0, false
	}
	return init - 1, true
}

// newMatcher prepares to match pattern against s, stripping a leading '^'
// anchor. maxSteps > 0 bounds the work of the whole search (tests only).
func newMatcher(s, pattern string, maxSteps int) (*matcher, bool) {
	return newMeteredMatcher(s, pattern, Options{MaxSteps: maxSteps}, nil)
}

// newMeteredMatcher is newMatcher with opts enforced for calls made from
// the Lua state l, ready for its first call.
func newMeteredMatcher(s, pattern string, opts Options, l *lua.State) (*matcher, bool) {
	m := new(matcher)
	return m, m.reset(s, pattern, opts, l)
}

// reset makes m a fresh matcher of pattern against s, reusing its memory,
// and reports whether the pattern is anchored.
func (m *matcher) reset(s, pattern string, opts Options, l *lua.State) bool {
	*m = matcher{src: s, pat: pattern, orig: pattern}
	anchor := len(pattern) > 0 && pattern[0] == '^'
	if anchor {
		m.pat = pattern[1:]
	}
	if opts.MaxSteps > 0 || opts.Budget != nil || opts.Memory != nil {
		m.meterStore = meter{l: l, budget: opts.Budget, memory: opts.Memory, maxSteps: max(opts.MaxSteps, 0)}
		m.meter = &m.meterStore
	}
	m.startCall()
	return anchor
}
