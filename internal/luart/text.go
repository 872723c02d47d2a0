package luart

import (
	"fmt"
	"strconv"
	"strings"

	lua "ptywright/internal/golua"
)

// ptywright.text: the string and row helpers screen-reading plugins keep
// writing (both built-in adapters carried their own copies), in Go. They
// are pure functions: every plugin gets them, without a permission, inline
// scripts too.
//
//	text.trim(s)                        s without leading and trailing white space
//	text.is_blank(s)                    s is empty or only white space
//	text.starts(s, prefix)              s begins with prefix (plain; or any of a list)
//	text.contains(s, sub)               s contains sub (plain; or any of a list)
//	text.after(s, prefix)               the rest of s after prefix (or the first of a list), or nil
//	text.first_line(s, max?)            the first non-blank line of s, trimmed, cut to max bytes
//	text.columns(s)                     left, right: s split at its first run of two spaces
//	text.segments(s, gap?)              the segments of a status row, split at " · " and space runs
//	text.split_lines(s)                 lines, n: the lines of s as an array
//	text.find_line(lines, sub, from?, to?)  first index in from..to whose line contains sub
//	text.nonblank(lines, from?, to?)    first index in from..to whose line is not blank
//	text.last_nonblank(lines, from?, to?)   last such index
//	text.block(lines, i, from?, to?)    first, last: the run of non-blank lines holding line i
//	text.hash(s)                        djb2 of s's bytes mod 2^32, as eight hex digits (a stable short key)
//
// White space is what Lua's %s matches (space, \t, \n, \v, \f, \r) and
// the no-break space U+00A0 (UTF-8 C2 A0), which terminal programs put
// where a space must not wrap. Strings are bytes, as in Lua: no other
// Unicode space counts, and invalid UTF-8 is left alone. The runs that
// columns and segments split at are of plain spaces (U+0020), the only
// space a terminal row is padded with.
//
// Work is charged to the instruction budget and every string and table
// they make goes through the memory budget's allocation hook, as the same
// values made in Lua would.

// lineCost is what the helpers charge per line or list item they look at,
// on top of the bytes they scan: a Go loop step is a few instructions'
// worth.
const lineCost = 2

// segmentSep separates the fields of a status or footer row: a middle dot
// (U+00B7) between spaces.
const segmentSep = " \u00b7 "

// installText adds the text table to the ptywright table on top of the
// stack.
func (rt *Runtime) installText(l *lua.State) {
	rt.newSafeLibrary(l, "text.", []lua.RegistryFunction{
		{Name: "trim", Function: textTrim},
		{Name: "is_blank", Function: textIsBlank},
		{Name: "starts", Function: rt.textStarts},
		{Name: "contains", Function: rt.textContains},
		{Name: "after", Function: rt.textAfter},
		{Name: "first_line", Function: rt.textFirstLine},
		{Name: "columns", Function: rt.textColumns},
		{Name: "segments", Function: rt.textSegments},
		{Name: "split_lines", Function: rt.textSplitLines},
		{Name: "find_line", Function: rt.textFindLine},
		{Name: "nonblank", Function: rt.textNonblank},
		{Name: "last_nonblank", Function: rt.textLastNonblank},
		{Name: "block", Function: rt.textBlock},
		{Name: "hash", Function: rt.textHash},
	})
	l.SetField(-2, "text")
}

// isSpaceByte is Lua's %s in the C locale.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimLeft strips white space (see above) from the start of s.
func trimLeft(s string) string {
	a := 0
	for a < len(s) {
		if isSpaceByte(s[a]) {
			a++
		} else if s[a] == 0xC2 && a+1 < len(s) && s[a+1] == 0xA0 {
			a += 2
		} else {
			break
		}
	}
	return s[a:]
}

// trimRight strips white space (see above) from the end of s.
func trimRight(s string) string {
	b := len(s)
	for b > 0 {
		if isSpaceByte(s[b-1]) {
			b--
		} else if s[b-1] == 0xA0 && b >= 2 && s[b-2] == 0xC2 {
			b -= 2
		} else {
			break
		}
	}
	return s[:b]
}

// trimSpace strips white space (see above) from both ends of s.
func trimSpace(s string) string {
	return trimRight(trimLeft(s))
}

// textHash is text.hash(s): djb2 (h = h*33 + byte, from 5381) mod 2^32,
// as eight hex digits: the key the built-in plugins give a dialog's text.
func (rt *Runtime) textHash(l *lua.State) int {
	s := CheckString(l, "text.hash", 1)
	rt.budget.chargeBytes(l, len(s))
	h := uint32(5381)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint32(s[i])
	}
	l.PushString(fmt.Sprintf("%08x", h))
	return 1
}

// textTrim is text.trim(s): s without its leading and trailing white
// space; s itself when there is none.
func textTrim(l *lua.State) int {
	s := CheckString(l, "text.trim", 1)
	t := trimSpace(s)
	if len(t) == len(s) {
		l.PushValue(1) // the same string: nothing new to account for
		return 1
	}
	l.PushString(t)
	return 1
}

// textIsBlank is text.is_blank(s): whether s is empty or only white space
// (text.trim(s) == "").
func textIsBlank(l *lua.State) int {
	l.PushBoolean(trimSpace(CheckString(l, "text.is_blank", 1)) == "")
	return 1
}

// firstOf calls ok with argument arg, a string (a number converts), or
// with each string of the array it is, in order, and returns the first
// that ok accepts. Every list item must be a string.
func (rt *Runtime) firstOf(l *lua.State, fname string, arg int, ok func(string) bool) (string, bool) {
	if !l.IsTable(arg) {
		p := CheckString(l, fname, arg)
		return p, ok(p)
	}
	n := l.RawLength(arg)
	for i := 1; i <= n; i++ {
		p := rt.stringItem(l, fname, arg, i, "item")
		if ok(p) {
			return p, true
		}
	}
	return "", false
}

// stringItem returns element i of the array argument arg, which must be a
// string, charging for looking at it; noun names it in the error.
func (rt *Runtime) stringItem(l *lua.State, fname string, arg, i int, noun string) string {
	l.RawGetInt(arg, i)
	s, ok := stringAt(l, -1)
	if !ok {
		ArgError(l, fname, arg, noun+" "+strconv.Itoa(i)+" is a "+lua.TypeNameOf(l, -1)+", not a string")
	}
	l.Pop(1)
	rt.budget.charge(l, lineCost+int64(len(s)/bytesPerInstruction))
	return s
}

// textStarts is text.starts(s, prefix): prefix is a string, or a list of
// them, any of which will do.
func (rt *Runtime) textStarts(l *lua.State) int {
	s := CheckString(l, "text.starts", 1)
	_, ok := rt.firstOf(l, "text.starts", 2, func(p string) bool { return strings.HasPrefix(s, p) })
	l.PushBoolean(ok)
	return 1
}

// textContains is text.contains(s, sub): a plain search, as
// string.find(s, sub, 1, true) ~= nil; sub may be a list, any of which
// will do.
func (rt *Runtime) textContains(l *lua.State) int {
	s := CheckString(l, "text.contains", 1)
	_, ok := rt.firstOf(l, "text.contains", 2, func(sub string) bool {
		rt.budget.chargeBytes(l, len(s))
		return strings.Contains(s, sub)
	})
	l.PushBoolean(ok)
	return 1
}

// textAfter is text.after(s, prefix): the rest of s after prefix when s
// begins with it, else nil. With a list, the first prefix in it that s
// begins with is cut.
func (rt *Runtime) textAfter(l *lua.State) int {
	s := CheckString(l, "text.after", 1)
	p, ok := rt.firstOf(l, "text.after", 2, func(p string) bool { return strings.HasPrefix(s, p) })
	if !ok {
		l.PushNil()
		return 1
	}
	l.PushString(s[len(p):])
	return 1
}

// textFirstLine is text.first_line(s, max?): the first line of s that is
// not blank, without its leading and trailing white space ("" when s is
// blank). With max, a longer line is cut to max bytes and then loses its
// last character if that is not ASCII, so the cut never ends inside a
// UTF-8 sequence.
func (rt *Runtime) textFirstLine(l *lua.State) int {
	const fname = "text.first_line"
	s := CheckString(l, fname, 1)
	limit := -1
	if !l.IsNoneOrNil(2) {
		if limit = CheckInt(l, fname, 2); limit < 0 {
			ArgError(l, fname, 2, "max must not be negative")
		}
	}
	s = trimLeft(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	rt.budget.chargeBytes(l, len(s))
	s = trimRight(s)
	if limit >= 0 && len(s) > limit {
		s = s[:limit]
		j := len(s)
		for j > 0 && s[j-1] >= 0x80 && s[j-1] < 0xC0 {
			j--
		}
		if j > 0 && s[j-1] >= 0xC0 {
			s = s[:j-1]
		}
	}
	l.PushString(s)
	return 1
}

// spaceRun returns where the first run of at least n spaces in s starts
// and ends (end exclusive), or -1, -1.
func spaceRun(s string, n int) (int, int) {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j-i >= n {
			return i, j
		}
		i = j
	}
	return -1, -1
}

// textColumns is text.columns(s): s split at its first run of two or more
// spaces, as a menu row sets a label beside its description. It returns
// both parts trimmed; the second is nil when s has no such run (and ""
// when the run ends s).
func (rt *Runtime) textColumns(l *lua.State) int {
	s := CheckString(l, "text.columns", 1)
	rt.budget.chargeBytes(l, len(s))
	i, j := spaceRun(s, 2)
	if i < 0 {
		l.PushString(trimSpace(s))
		l.PushNil()
		return 2
	}
	l.PushString(trimSpace(s[:i]))
	l.PushString(trimSpace(s[j:]))
	return 2
}

// textSegments is text.segments(s, gap?): the segments of a status or
// footer row, as an array. s is split at every " · " (a middle dot
// between spaces), read as ending in one (so a row that ends in " ·" ends
// with that separator), and each piece at every run of gap (default 2) or
// more spaces; the segments are trimmed and empty ones left out.
func (rt *Runtime) textSegments(l *lua.State) int {
	const fname = "text.segments"
	s := CheckString(l, fname, 1)
	gap := OptInt(l, fname, 2, 2)
	if gap < 1 {
		ArgError(l, fname, 2, "gap must be at least 1")
	}
	rt.budget.chargeBytes(l, len(s))
	// Every piece is ended by a separator: a row whose trailing space was
	// trimmed after its last dot still ends in one.
	s += segmentSep
	l.NewTable()
	n := 0
	for {
		piece, rest, more := strings.Cut(s, segmentSep)
		if !more {
			break // what follows the last separator
		}
		for {
			i, j := spaceRun(piece, gap)
			seg := piece
			if i >= 0 {
				seg = piece[:i]
			}
			if seg = trimSpace(seg); seg != "" {
				rt.budget.charge(l, lineCost)
				n++
				l.PushString(seg)
				l.RawSetInt(-2, n)
			}
			if i < 0 {
				break
			}
			piece = piece[j:]
		}
		s = rest
	}
	return 1
}

// textSplitLines is text.split_lines(s): an array of the lines of s and
// their number. A line ends at "\n" or "\r\n" (neither is part of it); a
// lone "\r" stays in its line. A newline at the very end ends the last
// line rather than starting an empty one, so "a\n" and "a" are both {"a"},
// "a\n\n" is {"a", ""}, and "" has no lines ({}, 0).
//
// The array is sized before it is made, so a string of many short lines
// is refused by the memory budget before anything is built.
func (rt *Runtime) textSplitLines(l *lua.State) int {
	s := CheckString(l, "text.split_lines", 1)
	rt.budget.chargeBytes(l, len(s))
	n := strings.Count(s, "\n")
	if s != "" && s[len(s)-1] != '\n' {
		n++
	}
	rt.budget.charge(l, int64(n)*lineCost)
	l.CreateTable(n, 0)
	for i := 1; i <= n; i++ {
		line := s
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			line, s = strings.TrimSuffix(s[:j], "\r"), s[j+1:]
		}
		l.PushString(line)
		l.RawSetInt(-2, i)
	}
	l.PushInteger(n)
	return 2
}

// lineSpan reads the optional from and to arguments at fromArg and
// fromArg+1 of a function whose first argument is an array of lines: from
// defaults to 1 and to to #lines, and both are clamped to the array, so a
// span past either end, or an empty one, is not an error.
func lineSpan(l *lua.State, fname string, fromArg int) (from, to int) {
	n := l.RawLength(1)
	from = max(OptInt(l, fname, fromArg, 1), 1)
	to = min(OptInt(l, fname, fromArg+1, n), n)
	return from, to
}

// textFindLine is text.find_line(lines, sub, from?, to?): the index of the
// first line in from..to that contains sub (a plain search), or nil. from
// and to are as in lineSpan. Every line searched must be a string.
func (rt *Runtime) textFindLine(l *lua.State) int {
	const fname = "text.find_line"
	CheckTable(l, fname, 1)
	sub := CheckString(l, fname, 2)
	from, to := lineSpan(l, fname, 3)
	return rt.pushLineWhere(l, fname, from, to, false, func(line string) bool { return strings.Contains(line, sub) })
}

// textNonblank is text.nonblank(lines, from?, to?): the index of the first
// line in from..to that is not blank, or nil; from and to are as in
// find_line.
func (rt *Runtime) textNonblank(l *lua.State) int {
	const fname = "text.nonblank"
	CheckTable(l, fname, 1)
	from, to := lineSpan(l, fname, 2)
	return rt.pushLineWhere(l, fname, from, to, false, isNonblank)
}

// textLastNonblank is text.last_nonblank(lines, from?, to?): the index of
// the last line in from..to that is not blank, or nil.
func (rt *Runtime) textLastNonblank(l *lua.State) int {
	const fname = "text.last_nonblank"
	CheckTable(l, fname, 1)
	from, to := lineSpan(l, fname, 2)
	return rt.pushLineWhere(l, fname, from, to, true, isNonblank)
}

// pushLineWhere pushes the index of the first line of the table at 1 in
// from..to (the last, backward) for which ok holds, or nil; every line
// looked at must be a string.
func (rt *Runtime) pushLineWhere(l *lua.State, fname string, from, to int, backward bool, ok func(string) bool) int {
	i, end, step := from, to+1, 1
	if backward {
		i, end, step = to, from-1, -1
	}
	for ; from <= to && i != end; i += step {
		if ok(rt.stringItem(l, fname, 1, i, "line")) {
			l.PushInteger(i)
			return 1
		}
	}
	l.PushNil()
	return 1
}

func isNonblank(s string) bool { return trimSpace(s) != "" }

// textBlock is text.block(lines, i, from?, to?): first, last, the run of
// non-blank lines that holds line i, not reaching past from..to (as in
// find_line). When line i is blank, or outside from..to, the run is empty:
// i, i - 1. block(lines, i, i) is the rows from i down to the first blank
// one, and table.concat(lines, sep, text.block(lines, i, i)) joins them.
func (rt *Runtime) textBlock(l *lua.State) int {
	const fname = "text.block"
	CheckTable(l, fname, 1)
	i := CheckInt(l, fname, 2)
	from, to := lineSpan(l, fname, 3)
	filled := func(k int) bool { return trimSpace(rt.stringItem(l, fname, 1, k, "line")) != "" }
	first, last := i, i-1
	if i >= from && i <= to && filled(i) {
		last = i
		for first > from && filled(first-1) {
			first--
		}
		for last < to && filled(last+1) {
			last++
		}
	}
	l.PushInteger(first)
	l.PushInteger(last)
	return 2
}
