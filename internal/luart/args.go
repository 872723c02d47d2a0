package luart

import lua "ptywright/internal/golua"

// Argument helpers for the host functions a plugin calls. Every one
// raises Lua's own "bad argument #n to 'fname' (...)" error, so a plugin
// sees the same message from ptywright.* as from the standard library:
// Check* require the argument, Opt* return def when it is nil or absent.

// ArgError raises "bad argument #arg to 'fname' (msg)".
func ArgError(l *lua.State, fname string, arg int, msg string) {
	lua.Errorf(l, "bad argument #%d to '%s' (%s)", arg, fname, msg)
}

// CheckString returns argument arg as a string (a number converts).
func CheckString(l *lua.State, fname string, arg int) string {
	if s, ok := stringAt(l, arg); ok {
		return s
	}
	s, ok := l.ToString(arg)
	if !ok {
		ArgError(l, fname, arg, "string expected, got "+TypeName(l, arg))
	}
	return s
}

// CheckInt returns argument arg as an integer; a number with a fraction
// is refused.
func CheckInt(l *lua.State, fname string, arg int) int {
	f, ok := l.ToNumber(arg)
	if !ok {
		ArgError(l, fname, arg, "number expected, got "+TypeName(l, arg))
	}
	if f != float64(int64(f)) {
		ArgError(l, fname, arg, "number has no integer representation")
	}
	return int(f)
}

// OptInt is CheckInt, or def when argument arg is nil or absent.
func OptInt(l *lua.State, fname string, arg, def int) int {
	if l.IsNoneOrNil(arg) {
		return def
	}
	return CheckInt(l, fname, arg)
}

// CheckAny raises unless argument arg is present (nil counts).
func CheckAny(l *lua.State, fname string, arg int) {
	if l.IsNone(arg) {
		ArgError(l, fname, arg, "value expected")
	}
}

// CheckFunction raises unless argument arg is a function.
func CheckFunction(l *lua.State, fname string, arg int) {
	if !l.IsFunction(arg) {
		ArgError(l, fname, arg, "function expected, got "+TypeName(l, arg))
	}
}

// CheckTable raises unless argument arg is a table.
func CheckTable(l *lua.State, fname string, arg int) {
	if !l.IsTable(arg) {
		ArgError(l, fname, arg, "table expected, got "+TypeName(l, arg))
	}
}

// stringAt returns the value at index when it is a string. Unlike
// lua.State.ToString it leaves the stack alone: ToString writes the value
// back (numbers become strings there), which allocates on every call, and
// host functions a plugin calls per row (ptywright.text) would pay for it
// each time.
func stringAt(l *lua.State, index int) (string, bool) {
	if l.TypeOf(index) != lua.TypeString {
		return "", false
	}
	s, ok := l.ToValue(index).(string)
	return s, ok
}

// TypeName is the type of argument arg as Lua's messages name it ("no
// value" when absent).
func TypeName(l *lua.State, arg int) string {
	if l.IsNone(arg) {
		return "no value"
	}
	return lua.TypeNameOf(l, arg)
}
