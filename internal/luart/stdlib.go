package luart

import (
	"regexp"
	"strings"

	lua "ptywright/internal/golua"
)

// print collects output for the host instead of writing to stdout.
func (rt *Runtime) print(l *lua.State) int {
	n := l.Top()
	for i := 1; i <= n; i++ {
		s, _ := lua.ToStringMeta(l, i)
		l.Pop(1)
		if i > 1 {
			rt.writeOutput("\t")
		}
		rt.writeOutput(s)
	}
	rt.writeOutput("\n")
	return 0
}

func (rt *Runtime) writeOutput(s string) {
	rt.budget.chargeBytes(rt.l, len(s))
	if room := maxPrintBytes - rt.output.Len(); len(s) > room {
		s = s[:max(room, 0)]
		rt.outputCut = true
	}
	rt.output.WriteString(s)
}

// lastOutput is what print wrote during the last call, "[output
// truncated]" marking a cut.
func (rt *Runtime) lastOutput() string {
	if rt.outputCut {
		return rt.output.String() + "\n[output truncated]"
	}
	return rt.output.String()
}

// stringRep is string.rep with its result capped at MaxStringBytes
// and charged to the budget.
func (rt *Runtime) stringRep(l *lua.State) int {
	s := CheckString(l, "rep", 1)
	n := CheckInt(l, "rep", 2)
	sep := ""
	if !l.IsNoneOrNil(3) {
		sep = CheckString(l, "rep", 3)
	}
	if n <= 0 {
		l.PushString("")
		return 1
	}
	unit := len(s) + len(sep)
	if unit > 0 && n > (MaxStringBytes+len(sep))/unit {
		lua.Errorf(l, "string.rep: result would exceed %d bytes", MaxStringBytes)
	}
	size := n*len(s) + (n-1)*len(sep)
	rt.budget.chargeBytes(l, size)
	rt.budget.alloc(l, size)
	if sep == "" {
		l.PushString(strings.Repeat(s, n))
		return 1
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(s)
	for ; n > 1; n-- {
		b.WriteString(sep)
		b.WriteString(s)
	}
	l.PushString(b.String())
	return 1
}

// asciiCase is string.lower / string.upper as Lua has them in the C
// locale: only ASCII letters change, every other byte is kept, so the
// result has the same length and offsets (go-lua's use Unicode case
// mapping, which can change both, and is several times slower).
func asciiCase(fname string, from, to byte, delta int) lua.Function {
	return func(l *lua.State) int {
		s := CheckString(l, fname, 1)
		i := 0
		for i < len(s) && (s[i] < from || s[i] > to) {
			i++
		}
		if i == len(s) {
			l.PushString(s)
			return 1
		}
		b := []byte(s)
		for ; i < len(b); i++ {
			if c := b[i]; c >= from && c <= to {
				b[i] = byte(int(c) + delta)
			}
		}
		l.PushString(string(b))
		return 1
	}
}

// tableConcat is table.concat in linear time (go-lua's is quadratic),
// capped at MaxStringBytes and charged to the budget.
func (rt *Runtime) tableConcat(l *lua.State) int {
	CheckTable(l, "concat", 1)
	sep := ""
	if !l.IsNoneOrNil(2) {
		sep = CheckString(l, "concat", 2)
	}
	i := 1
	if !l.IsNoneOrNil(3) {
		i = CheckInt(l, "concat", 3)
	}
	var last int
	if l.IsNoneOrNil(4) {
		last = lua.LengthEx(l, 1)
	} else {
		last = CheckInt(l, "concat", 4)
	}
	var b strings.Builder
	for ; i <= last; i++ {
		l.RawGetInt(1, i)
		s, ok := l.ToString(-1)
		if !ok {
			lua.Errorf(l, "invalid value (at index %d) in table for 'concat'", i)
		}
		l.Pop(1)
		if b.Len()+len(s)+len(sep) > MaxStringBytes {
			lua.Errorf(l, "table.concat: result would exceed %d bytes", MaxStringBytes)
		}
		rt.budget.grow(l, &b, len(s)+len(sep))
		b.WriteString(s)
		if i < last {
			b.WriteString(sep)
		}
		rt.budget.charge(l, elementCost+int64((len(s)+len(sep))/bytesPerInstruction))
	}
	l.PushString(b.String())
	return 1
}

// regex compiles re (Go RE2 syntax) once per state; the cache is dropped
// when it fills up.
func (rt *Runtime) regex(l *lua.State, fname string, arg int, re string) *regexp.Regexp {
	if c, ok := rt.regexes[re]; ok {
		return c
	}
	rt.budget.chargeBytes(l, len(re)*bytesPerInstruction)
	c, err := regexp.Compile(re)
	if err != nil {
		ArgError(l, fname, arg, "invalid regular expression: "+err.Error())
	}
	if len(rt.regexes) >= maxRegexCache {
		clear(rt.regexes)
	}
	rt.regexes[re] = c
	return c
}
