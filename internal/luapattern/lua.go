package luapattern

import (
	"errors"
	"strings"

	lua "ptywright/internal/golua"
)

// ErrNoStringLibrary is returned by Install when the state has no string
// library to extend: neither a string metatable with an __index table nor
// a global "string" table.
var ErrNoStringLibrary = errors.New("luapattern: string library is not open")

// binding holds the options the installed functions enforce and the
// analyses of the patterns they have seen. A Lua state runs one call at a
// time, so it needs no lock.
type binding struct {
	opts  Options
	cache patternCache
	// spare holds matchers that finished calls, for reuse: a matcher is
	// some 600 bytes, and plugins call find and match in loops.
	spare []*matcher
}

// maxSpareMatchers bounds binding.spare; more are only needed while a
// gsub callback itself matches.
const maxSpareMatchers = 4

// matcher returns a matcher for one call from Lua, with the cached
// analysis of pattern attached. Give it back with release when the call
// no longer needs it.
func (b *binding) matcher(l *lua.State, s, pattern string) (*matcher, bool) {
	var m *matcher
	if n := len(b.spare); n > 0 {
		m, b.spare = b.spare[n-1], b.spare[:n-1]
	} else {
		m = new(matcher)
	}
	anchor := m.reset(s, pattern, b.opts, l)
	b.cache.prepare(m, pattern)
	return m, anchor
}

func (b *binding) release(m *matcher) {
	if len(b.spare) < maxSpareMatchers {
		m.src = "" // do not keep the subject alive
		b.spare = append(b.spare, m)
	}
}

func (b *binding) functions() []lua.RegistryFunction {
	return []lua.RegistryFunction{
		{Name: "find", Function: func(l *lua.State) int { return b.findAux(l, "find", true) }},
		{Name: "match", Function: func(l *lua.State) int { return b.findAux(l, "match", false) }},
		{Name: "gmatch", Function: b.gmatch},
		{Name: "gsub", Function: b.gsub},
	}
}

// Argument checks. go-lua's own helpers (lua.CheckString, ...) name the
// function '?' because its debug info cannot recover a Go function's
// name, so these name it themselves, as a direct call string.f(...) reads
// in Lua: "bad argument #3 to 'gsub' (...)". For a method call
// s:gsub(...) Lua would count from the first explicit argument (#2); we
// cannot tell the call kind, so the number stays the position on the stack.

func argError(l *lua.State, fname string, arg int, msg string) {
	lua.Errorf(l, "bad argument #%d to '%s' (%s)", arg, fname, msg)
}

func typeError(l *lua.State, fname string, arg int, want string) {
	argError(l, fname, arg, want+" expected, got "+lua.TypeNameOf(l, arg))
}

// checkString is luaL_checklstring: numbers are converted, as in Lua.
func checkString(l *lua.State, fname string, arg int) string {
	s, ok := l.ToString(arg)
	if !ok {
		typeError(l, fname, arg, "string")
	}
	return s
}

// optInteger is luaL_optinteger: absent or nil gives def.
func optInteger(l *lua.State, fname string, arg, def int) int {
	if l.IsNoneOrNil(arg) {
		return def
	}
	n, ok := l.ToInteger(arg)
	if !ok {
		typeError(l, fname, arg, "number")
	}
	return n
}

// Install gives an opened go-lua string library Lua 5.2's pattern
// functions: it replaces string.find (go-lua's ignores patterns) and adds
// string.match, string.gmatch and string.gsub. It writes into the table
// that strings index through their metatable, so method calls such as
// ("abc"):match("b") see them, and into the global "string" table if that
// is a different table. Call it after the string library is opened.
//
// Matching is unbounded in time, as in Lua; a host running code it does
// not fully control should use InstallWithOptions.
func Install(l *lua.State) error {
	return InstallWithOptions(l, Options{})
}

// InstallWithOptions is Install with the work of every call bounded by
// opts: a per-call step limit, a Budget charged as matching proceeds, or
// both.
func InstallWithOptions(l *lua.State, opts Options) error {
	fns := (&binding{opts: opts, cache: patternCache{}}).functions()
	top := l.Top()
	defer l.SetTop(top)
	installed := false
	l.PushString("")
	if l.MetaTable(-1) {
		l.Field(-1, "__index") // the table method calls on strings use
		if l.IsTable(-1) {
			lua.SetFunctions(l, fns, 0)
			installed = true
		}
	}
	l.Global("string")
	if l.IsTable(-1) && !(installed && l.RawEqual(-1, -2)) {
		lua.SetFunctions(l, fns, 0)
		installed = true
	}
	if !installed {
		return ErrNoStringLibrary
	}
	return nil
}

// raise turns a pattern error into a Lua error with Lua's own message.
func raise(l *lua.State, err error) {
	msg := err.Error()
	var pe *Error
	if errors.As(err, &pe) {
		msg = pe.Msg
	}
	lua.Errorf(l, "%s", msg)
}

func pushCaptures(l *lua.State, caps []Capture) int {
	lua.CheckStackWithMessage(l, len(caps), msgTooManyCaptures)
	for _, c := range caps {
		pushCapture(l, c)
	}
	return len(caps)
}

func pushCapture(l *lua.State, c Capture) {
	if c.IsPosition() {
		l.PushInteger(c.Pos)
	} else {
		l.PushString(c.Text)
	}
}

// findAux is string.find (isFind) and string.match (!isFind).
func (b *binding) findAux(l *lua.State, fname string, isFind bool) int {
	s := checkString(l, fname, 1)
	p := checkString(l, fname, 2)
	from, ok := startOffset(optInteger(l, fname, 3, 1), len(s))
	if !ok {
		l.PushNil()
		return 1
	}
	if isFind && (l.ToBoolean(4) || !strings.ContainsAny(p, specials)) {
		if i := strings.Index(s[from:], p); i >= 0 {
			l.PushInteger(from + i + 1)
			l.PushInteger(from + i + len(p))
			return 2
		}
		l.PushNil()
		return 1
	}
	m, anchor := b.matcher(l, s, p)
	start, end, err := m.search(from, anchor)
	m.flush()
	if err != nil {
		raise(l, err)
	}
	if start < 0 {
		b.release(m)
		l.PushNil()
		return 1
	}
	n := 0
	if isFind {
		l.PushInteger(start + 1)
		l.PushInteger(end)
		n = 2
	}
	n += pushMatchCaptures(l, m, start, end, !isFind)
	b.release(m)
	return n
}

// pushMatchCaptures pushes the captures of a match as allCaptures would
// list them, without building the list.
func pushMatchCaptures(l *lua.State, m *matcher, start, end int, whole bool) int {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	lua.CheckStackWithMessage(l, n, msgTooManyCaptures)
	for i := range n {
		c, err := m.oneCapture(i, start, end)
		if err != nil {
			raise(l, err)
		}
		pushCapture(l, c)
	}
	return n
}

// gmatch is string.gmatch: the iterator it returns is a Go closure over
// the subject, the pattern and the current position.
func (b *binding) gmatch(l *lua.State) int {
	s := checkString(l, "gmatch", 1)
	p := checkString(l, "gmatch", 2)
	m, _ := newMeteredMatcher(s, p, b.opts, l)
	m.pat = p // gmatch does not anchor: '^' is literal (see GMatch)
	b.cache.prepare(m, "\x00gmatch:"+p)
	it := &Iterator{m: m}
	l.PushGoFunction(func(l *lua.State) int {
		it.m.startCall()
		caps, ok, err := it.Next()
		it.m.flush()
		if err != nil {
			raise(l, err)
		}
		if !ok {
			return 0
		}
		return pushCaptures(l, caps)
	})
	return 1
}

// gsubLua is string.gsub.
func (b *binding) gsub(l *lua.State) int {
	src := checkString(l, "gsub", 1)
	p := checkString(l, "gsub", 2)
	tr := l.TypeOf(3)
	// Lua 5.2 converts n to size_t, so a negative n means no limit, which
	// is what gsub takes n < 0 to mean.
	n := optInteger(l, "gsub", 4, len(src)+1)
	switch tr {
	case lua.TypeNumber, lua.TypeString, lua.TypeFunction, lua.TypeTable:
	default:
		argError(l, "gsub", 3, "string/function/table expected")
	}
	var add replacer
	switch tr {
	case lua.TypeFunction:
		add = func(b *strings.Builder, m *matcher, start, end int) error {
			caps, err := m.allCaptures(start, end, true)
			if err != nil {
				return err
			}
			l.PushValue(3)
			l.Call(pushCaptures(l, caps), 1)
			addValue(l, m, b, m.src[start:end])
			return nil
		}
	case lua.TypeTable:
		add = func(b *strings.Builder, m *matcher, start, end int) error {
			key, err := m.oneCapture(0, start, end)
			if err != nil {
				return err
			}
			pushCapture(l, key)
			l.Table(3)
			addValue(l, m, b, m.src[start:end])
			return nil
		}
	default:
		repl, _ := l.ToString(3)
		add = func(b *strings.Builder, m *matcher, start, end int) error {
			return m.expand(b, repl, start, end)
		}
	}
	m, anchor := b.matcher(l, src, p)
	out, count, err := gsub(m, anchor, n, add)
	m.flush()
	if err != nil {
		raise(l, err)
	}
	b.release(m)
	l.PushString(out)
	l.PushInteger(count)
	return 2
}

// addValue pops the value a gsub function or table produced and appends
// it, or the original match when it is false or nil.
func addValue(l *lua.State, m *matcher, b *strings.Builder, match string) {
	if !l.ToBoolean(-1) {
		m.reserve(b, len(match))
		b.WriteString(match)
	} else if s, ok := l.ToString(-1); ok {
		m.reserve(b, len(s))
		b.WriteString(s)
	} else {
		lua.Errorf(l, "invalid replacement value (a %s)", lua.TypeNameOf(l, -1))
	}
	l.Pop(1)
}
