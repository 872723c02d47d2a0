package luapattern

// A pattern is re-read on every match, as Lua does. Two things the
// matcher would recompute for each call depend only on the pattern: the
// first item a match must start with, and the membership of each bracket
// class ([^\n], [%s│]). The Lua bindings keep them per pattern in a small
// cache, so a plugin that runs the same patterns on every call pays for
// that analysis once.

// maxCachedPatterns bounds the cache of one binding; it is emptied when
// full.
const maxCachedPatterns = 128

// analysis is what the matcher can reuse between matches of one pattern
// (anchor stripped).
type analysis struct {
	first firstItem
	// sets holds, at the offset of each '[' that opens a class, the bytes
	// the class accepts; nil elsewhere, and nil when the pattern is
	// malformed (the matcher then reports the error itself).
	sets []*[256]bool
}

// analyse computes m's analysis. It must not fail: any malformed part is
// left to the matcher, which raises Lua's error at the same point as
// before.
func (m *matcher) analyse() (a *analysis) {
	a = &analysis{first: m.firstItem()}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(matchPanic); !ok {
				panic(r)
			}
			a.sets = nil
		}
	}()
	for p := 0; p < len(m.pat); {
		switch m.pat[p] {
		case escape:
			switch m.at(p + 1) {
			case 'b':
				p += 4
				continue
			case 'f':
				p += 2 // the '[' that follows is a set, handled below
				continue
			}
			p += 2
		case '[':
			ep, msg := m.scanClass(p)
			if msg != "" {
				return a
			}
			if a.sets == nil {
				a.sets = make([]*[256]bool, len(m.pat))
			}
			set := new([256]bool)
			for c := range set {
				set[c] = m.matchBracketClass(byte(c), p, ep-1)
			}
			a.sets[p] = set
			p = ep
		default:
			p++
		}
	}
	return a
}

// patternCache maps a pattern as given to its analysis.
type patternCache map[string]*analysis

// prepare attaches the cached analysis of pattern to m, computing it on a
// miss.
func (c patternCache) prepare(m *matcher, pattern string) {
	a, ok := c[pattern]
	if !ok {
		a = m.analyse()
		if len(c) >= maxCachedPatterns {
			clear(c)
		}
		c[pattern] = a
	}
	m.first = &a.first
	m.sets = a.sets
}
