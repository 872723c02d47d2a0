package luapattern

import "strings"

// The matcher is a backtracking interpreter over the pattern text, with the
// same control flow as Lua 5.2's lstrlib.c: which steps recurse (and so
// count against MaxMatchDepth) and which loop is kept identical, so that
// "pattern too complex" fires on exactly the patterns where Lua raises it.

const (
	// MaxCaptures is Lua's LUA_MAXCAPTURES: the most captures a pattern
	// may hold.
	MaxCaptures = 32
	// MaxMatchDepth is Lua's MAXCCALLS: how deeply the matcher may recurse
	// before failing with ErrTooComplex instead of exhausting the stack.
	MaxMatchDepth = 200
)

// Capture lengths below zero mark captures that hold no text.
const (
	capUnfinished = -1 // opened by '(' and not yet closed
	capPosition   = -2 // a position capture "()"
)

const escape = '%'

// specials are the bytes that make string.find leave its plain search.
const specials = "^$*+?.([%-"

type capture struct {
	init   int // byte offset in the subject
	length int // or capUnfinished / capPosition
}

// matcher holds the state of one match attempt sequence over one subject
// and one (anchor-stripped) pattern.
type matcher struct {
	src        string
	pat        string
	orig       string // pattern as given, for error reports
	level      int    // number of captures, finished or not
	depth      int    // recursion budget left
	left       int    // steps before the meter runs (see meter.go)
	meter      *meter // nil: unmetered, as Lua is; else &meterStore
	meterStore meter
	captures   [MaxCaptures]capture
	first      *firstItem   // computed by the first unanchored search
	sets       []*[256]bool // bracket classes by offset, when analysed
}

// matchPanic carries a pattern error out of the recursion. It never
// escapes the package: search recovers it.
type matchPanic struct{ err *Error }

func (m *matcher) fail(msg string, kind error) {
	panic(matchPanic{&Error{Pattern: m.orig, Msg: msg, Kind: kind}})
}

// search tries each start offset from 'from' (only 'from' if anchored),
// as Lua does, and returns the first match's bounds, or -1, -1.
func (m *matcher) search(from int, anchor bool) (start, end int, err error) {
	defer func() {
		if r := recover(); r != nil {
			mp, ok := r.(matchPanic)
			if !ok {
				panic(r)
			}
			start, end, err = -1, -1, mp.err
		}
	}()
	if anchor {
		if e := m.matchAt(from); e != -1 {
			return from, e, nil
		}
		return -1, -1, nil
	}
	if m.first == nil {
		// gmatch and gsub search again and again with one matcher: the
		// first item depends only on the pattern.
		f := m.firstItem()
		m.first = &f
	}
	for s := from; s <= len(m.src); s++ {
		if s = m.first.next(m, s); s < 0 {
			break
		}
		if e := m.matchAt(s); e != -1 {
			return s, e, nil
		}
	}
	return -1, -1, nil
}

// matchAt starts a fresh match attempt at subject offset s.
func (m *matcher) matchAt(s int) int {
	m.level = 0
	m.depth = MaxMatchDepth
	return m.match(s, 0)
}

// firstItem finds the single-character item every match must start with,
// when the pattern begins with at most maxLeadingCaptures "(" and then a
// character or class that must occur at least once. At an offset whose
// byte that item rejects, Lua's attempt fails at once without raising an
// error, so search may skip such offsets; the limit on leading captures
// keeps "too many captures" and "pattern too complex", which fire before
// the item is reached, on the offsets where Lua raises them.
func (m *matcher) firstItem() firstItem {
	const maxLeadingCaptures = 8
	p := 0
	for p < maxLeadingCaptures && m.at(p) == '(' && m.at(p+1) != ')' {
		p++
	}
	if p >= len(m.pat) {
		return firstItem{}
	}
	switch c := m.pat[p]; c {
	case '(', ')', '$', '.':
		return firstItem{}
	case escape:
		if next := m.at(p + 1); next == 'b' || next == 'f' || isDigit(next) {
			return firstItem{}
		}
	}
	ep, msg := m.scanClass(p)
	if msg != "" {
		return firstItem{} // leave the error to the match attempt
	}
	switch m.at(ep) {
	case '*', '?', '-':
		return firstItem{}
	}
	if c := m.pat[p]; c != escape && c != '[' {
		return firstItem{kind: firstLiteral, lit: c}
	}
	f := firstItem{kind: firstClass}
	for c := range f.set {
		f.set[c] = m.classHas(byte(c), p, ep)
	}
	return f
}

type firstItem struct {
	kind int // firstNone, firstLiteral or firstClass
	lit  byte
	set  [256]bool // the bytes the class holds, for firstClass
}

const (
	firstNone = iota
	firstLiteral
	firstClass
)

// next returns the first offset from s where a match may start, or -1.
func (f *firstItem) next(m *matcher, s int) int {
	switch f.kind {
	case firstLiteral:
		i := strings.IndexByte(m.src[s:], f.lit)
		if i < 0 {
			return -1
		}
		return s + i
	case firstClass:
		for ; s < len(m.src); s++ {
			if f.set[m.src[s]] {
				return s
			}
		}
		return -1
	}
	return s
}

// at returns the pattern byte at i, or 0 past the end, the way C reads the
// string's terminating NUL.
func (m *matcher) at(i int) byte {
	if i < len(m.pat) {
		return m.pat[i]
	}
	return 0
}

// classEnd returns the offset just past the single-character class that
// starts at p.
func (m *matcher) classEnd(p int) int {
	ep, msg := m.scanClass(p)
	if msg != "" {
		m.fail(msg, ErrMalformedPattern)
	}
	return ep
}

// scanClass is classEnd reporting a malformed class by Lua's message.
func (m *matcher) scanClass(p int) (int, string) {
	c := m.pat[p]
	p++
	switch c {
	case escape:
		if p >= len(m.pat) {
			return 0, msgEndsWithPercent
		}
		return p + 1, ""
	case '[':
		if m.at(p) == '^' {
			p++
		}
		// The first byte of a set is taken literally, so "[]]" is a set
		// holding ']'.
		for {
			if p >= len(m.pat) {
				return 0, msgMissingBracket
			}
			c := m.pat[p]
			p++
			if c == escape && p < len(m.pat) {
				p++ // skip escapes such as "%]"
			}
			if m.at(p) == ']' {
				return p + 1, ""
			}
		}
	default:
		return p, ""
	}
}

// matchBracketClass reports whether c is in the set pat[p:ec+1], where p
// is at '[' and ec at the closing ']'.
func (m *matcher) matchBracketClass(c byte, p, ec int) bool {
	in := true
	if m.pat[p+1] == '^' {
		in = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case m.pat[p] == escape:
			p++
			if matchClass(c, m.pat[p]) {
				return in
			}
		case m.pat[p+1] == '-' && p+2 < ec:
			p += 2
			if m.pat[p-2] <= c && c <= m.pat[p] {
				return in
			}
		case m.pat[p] == c:
			return in
		}
	}
	return !in
}

// singleMatch reports whether the subject byte at s matches the class
// pat[p:ep].
func (m *matcher) singleMatch(s, p, ep int) bool {
	return s < len(m.src) && m.classHas(m.src[s], p, ep)
}

// classHas reports whether the class pat[p:ep] holds the byte c.
func (m *matcher) classHas(c byte, p, ep int) bool {
	switch m.pat[p] {
	case '.':
		return true
	case escape:
		return matchClass(c, m.pat[p+1])
	case '[':
		if m.sets != nil {
			if set := m.sets[p]; set != nil {
				return set[c]
			}
		}
		return m.matchBracketClass(c, p, ep-1)
	default:
		return m.pat[p] == c
	}
}

// tick spends one step; the meter runs only when a chunk is used up.
func (m *matcher) tick() {
	if m.left--; m.left < 0 {
		m.checkpoint()
	}
}

// match matches the pattern from p against the subject from s and returns
// the end of the match or -1. Where C uses "goto init" for tail calls, this
// loops, so only genuine recursion spends depth.
func (m *matcher) match(s, p int) int {
	if m.depth == 0 {
		m.fail(msgTooComplex, ErrTooComplex)
	}
	m.depth--
	m.tick()
loop:
	for p < len(m.pat) {
		switch m.pat[p] {
		case '(':
			if m.at(p+1) == ')' {
				s = m.startCapture(s, p+2, capPosition)
			} else {
				s = m.startCapture(s, p+1, capUnfinished)
			}
			break loop
		case ')':
			s = m.endCapture(s, p+1)
			break loop
		case '$':
			if p+1 == len(m.pat) {
				if s != len(m.src) {
					s = -1
				}
				break loop
			}
		case escape:
			switch next := m.at(p + 1); {
			case next == 'b':
				if s = m.matchBalance(s, p+2); s != -1 {
					p += 4
					continue
				}
				break loop
			case next == 'f':
				p += 2
				if m.at(p) != '[' {
					m.fail(msgMissingFrontier, ErrMalformedPattern)
				}
				ep := m.classEnd(p)
				var prev, cur byte // NUL before the start and at the end
				if s > 0 {
					prev = m.src[s-1]
				}
				if s < len(m.src) {
					cur = m.src[s]
				}
				if !m.matchBracketClass(prev, p, ep-1) && m.matchBracketClass(cur, p, ep-1) {
					p = ep
					continue
				}
				s = -1
				break loop
			case isDigit(next):
				if s = m.matchCapture(s, next); s != -1 {
					p += 2
					continue
				}
				break loop
			}
		}
		// A single-character class with an optional quantifier.
		ep := m.classEnd(p)
		if !m.singleMatch(s, p, ep) {
			switch m.at(ep) {
			case '*', '?', '-': // accept the empty match
				p = ep + 1
				continue
			}
			s = -1
			break loop
		}
		switch m.at(ep) {
		case '?':
			if res := m.match(s+1, ep+1); res != -1 {
				s = res
				break loop
			}
			p = ep + 1
			continue
		case '+':
			s = m.maxExpand(s+1, p, ep)
		case '*':
			s = m.maxExpand(s, p, ep)
		case '-':
			s = m.minExpand(s, p, ep)
		default:
			s++
			p = ep
			continue
		}
		break loop
	}
	m.depth++
	return s
}

// maxExpand matches as many repetitions as possible, then backs off one at
// a time until the rest of the pattern matches.
func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		m.tick()
		i++
	}
	for ; i >= 0; i-- {
		if res := m.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

// minExpand matches as few repetitions as possible, adding one at a time
// until the rest of the pattern matches.
func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if res := m.match(s, ep+1); res != -1 {
			return res
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= MaxCaptures {
		m.fail(msgTooManyCaptures, ErrTooManyCaptures)
	}
	m.captures[m.level] = capture{init: s, length: what}
	m.level++
	res := m.match(s, p)
	if res == -1 {
		m.level-- // undo the capture
	}
	return res
}

func (m *matcher) endCapture(s, p int) int {
	l := m.captureToClose()
	m.captures[l].length = s - m.captures[l].init
	res := m.match(s, p)
	if res == -1 {
		m.captures[l].length = capUnfinished // undo the close
	}
	return res
}

// captureToClose returns the innermost open capture.
func (m *matcher) captureToClose() int {
	for l := m.level - 1; l >= 0; l-- {
		if m.captures[l].length == capUnfinished {
			return l
		}
	}
	m.fail(msgInvalidPatCapture, ErrInvalidCapture)
	return 0
}

// matchBalance matches %bxy at s, with p at x.
func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail(msgMissingBalanceArg, ErrMalformedPattern)
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	open, close := m.pat[p], m.pat[p+1]
	depth := 1
	for s++; s < len(m.src); s++ {
		m.tick()
		switch m.src[s] {
		case close:
			if depth--; depth == 0 {
				return s + 1
			}
		case open:
			depth++
		}
	}
	return -1 // the subject ends out of balance
}

// matchCapture matches the back-reference %digit at s.
func (m *matcher) matchCapture(s int, digit byte) int {
	l := int(digit) - '1'
	if l < 0 || l >= m.level || m.captures[l].length == capUnfinished {
		m.fail(msgInvalidCapIndex+" %"+string(rune('0'+l+1)), ErrInvalidCapture)
	}
	c := m.captures[l]
	// A position capture has no text; Lua's unsigned length comparison
	// makes a back-reference to it fail.
	if c.length < 0 || len(m.src)-s < c.length || m.src[s:s+c.length] != m.src[c.init:c.init+c.length] {
		return -1
	}
	return s + c.length
}

// oneCapture returns capture i of a match that spans src[start:end]. With
// no captures, capture 0 is the whole match.
func (m *matcher) oneCapture(i, start, end int) (Capture, error) {
	if i >= m.level {
		if i != 0 {
			return Capture{}, &Error{Pattern: m.orig, Msg: msgInvalidCapIndex, Kind: ErrInvalidCapture}
		}
		return Capture{Text: m.src[start:end]}, nil
	}
	c := m.captures[i]
	switch c.length {
	case capUnfinished:
		return Capture{}, &Error{Pattern: m.orig, Msg: msgUnfinishedCapture, Kind: ErrInvalidCapture}
	case capPosition:
		return Capture{Pos: c.init + 1}, nil
	}
	return Capture{Text: m.src[c.init : c.init+c.length]}, nil
}

// allCaptures returns the captures of a match spanning src[start:end]. If
// whole is set and the pattern has no captures, the whole match is the
// only one (string.match); otherwise a pattern without captures yields nil
// (string.find).
func (m *matcher) allCaptures(start, end int, whole bool) ([]Capture, error) {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	if n == 0 {
		return nil, nil
	}
	caps := make([]Capture, n)
	for i := range caps {
		c, err := m.oneCapture(i, start, end)
		if err != nil {
			return nil, err
		}
		caps[i] = c
	}
	return caps, nil
}
