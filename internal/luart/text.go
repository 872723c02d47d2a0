package luart

import (
	"strconv"
	"strings"

	lua "ptywright/internal/golua"
)

// ptywright.text: the string helpers screen-reading plugins keep writing
// (both built-in adapters carried their own copies), in Go. They are pure
// functions: every plugin gets them, without a permission, inline scripts
// too.
//
//	text.trim(s)                        s without leading and trailing white space
//	text.is_blank(s)                    s is empty or only white space
//	text.starts(s, prefix)              s begins with prefix (plain)
//	text.contains(s, sub)               s contains sub (plain)
//	text.split_lines(s)                 lines, n: the lines of s as an array
//	text.find_line(lines, sub, from?, to?)  first index in from..to whose line contains sub
//
// White space is what Lua's %s matches (space, \t, \n, \v, \f, \r) and
// the no-break space U+00A0 (UTF-8 C2 A0), which terminal programs put
// where a space must not wrap. Strings are bytes, as in Lua: no other
// Unicode space counts, and invalid UTF-8 is left alone.
//
// Work is charged to the instruction budget and every string and table
// they make goes through the memory budget's allocation hook, as the same
// values made in Lua would.

// lineCost is what split_lines and find_line charge per line, on top of
// the bytes they scan: a Go loop step is a few instructions' worth.
const lineCost = 2

// installText adds the text table to the ptywright table on top of the
// stack.
func (rt *Runtime) installText(l *lua.State) {
	rt.newSafeLibrary(l, "text.", []lua.RegistryFunction{
		{Name: "trim", Function: textTrim},
		{Name: "is_blank", Function: textIsBlank},
		{Name: "starts", Function: textStarts},
		{Name: "contains", Function: rt.textContains},
		{Name: "split_lines", Function: rt.textSplitLines},
		{Name: "find_line", Function: rt.textFindLine},
	})
	l.SetField(-2, "text")
}

// isSpaceByte is Lua's %s in the C locale.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimSpace strips white space (see above) from both ends of s.
func trimSpace(s string) string {
	a, b := 0, len(s)
	for a < b {
		if isSpaceByte(s[a]) {
			a++
		} else if s[a] == 0xC2 && a+1 < b && s[a+1] == 0xA0 {
			a += 2
		} else {
			break
		}
	}
	for b > a {
		if isSpaceByte(s[b-1]) {
			b--
		} else if s[b-1] == 0xA0 && b-2 >= a && s[b-2] == 0xC2 {
			b -= 2
		} else {
			break
		}
	}
	return s[a:b]
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

// textStarts is text.starts(s, prefix).
func textStarts(l *lua.State) int {
	s := CheckString(l, "text.starts", 1)
	p := CheckString(l, "text.starts", 2)
	l.PushBoolean(strings.HasPrefix(s, p))
	return 1
}

// textContains is text.contains(s, sub): a plain search, as
// string.find(s, sub, 1, true) ~= nil.
func (rt *Runtime) textContains(l *lua.State) int {
	s := CheckString(l, "text.contains", 1)
	sub := CheckString(l, "text.contains", 2)
	rt.budget.chargeBytes(l, len(s))
	l.PushBoolean(strings.Contains(s, sub))
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

// textFindLine is text.find_line(lines, sub, from?, to?): the index of the
// first line in from..to that contains sub (a plain search), or nil. from
// defaults to 1 and to to #lines; both are clamped to the array, so a
// range past either end, or an empty one, is not an error. Every line
// searched must be a string.
func (rt *Runtime) textFindLine(l *lua.State) int {
	const fname = "text.find_line"
	CheckTable(l, fname, 1)
	sub := CheckString(l, fname, 2)
	n := l.RawLength(1)
	from := max(OptInt(l, fname, 3, 1), 1)
	to := min(OptInt(l, fname, 4, n), n)
	for i := from; i <= to; i++ {
		l.RawGetInt(1, i)
		line, ok := stringAt(l, -1)
		if !ok {
			ArgError(l, fname, 1, "line "+strconv.Itoa(i)+" is a "+lua.TypeNameOf(l, -1)+", not a string")
		}
		l.Pop(1)
		rt.budget.charge(l, lineCost+int64(len(line)/bytesPerInstruction))
		if strings.Contains(line, sub) {
			l.PushInteger(i)
			return 1
		}
	}
	l.PushNil()
	return 1
}
