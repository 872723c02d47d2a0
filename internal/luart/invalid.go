package luart

import (
	"errors"

	lua "ptywright/internal/golua"
)

// ptywright.invalid_params(message) lets a plugin say that the caller's
// params are wrong (a missing prompt, a string where a number belongs), as
// opposed to the plugin itself failing: the *Error it becomes wraps
// the host's InvalidParams class as well as ErrRuntime, so a JSON-RPC client gets
// -32602 instead of -32603. ptywright.refuse(message) says the params are
// fine but the intent cannot be carried out on the screen as it is (no
// dialog to approve, a composer that still holds text): it wraps the
// host's Refused class. Each raises a table {message = message} whose
// metatable is the host's own (the one thing a plugin cannot forge by
// accident), so it survives pcall and a re-raise with error(e), and
// tostring(e) is the message.

// raisedClass is one of those functions: its name on the ptywright table,
// the registry key of its metatable and the host class it wraps.
type raisedClass struct {
	name, key string
	class     func(Classes) error
}

var raisedClasses = []raisedClass{
	{"invalid_params", "ptywright.invalid_params", func(c Classes) error { return c.InvalidParams }},
	{"refuse", "ptywright.refuse", func(c Classes) error { return c.Refused }},
}

// installInvalidParams sets invalid_params and refuse on the ptywright
// table on top of the stack.
func (rt *Runtime) installInvalidParams(l *lua.State) {
	for _, rc := range raisedClasses {
		l.CreateTable(0, 2)
		l.PushGoFunction(func(l *lua.State) int {
			l.Field(1, "message")
			return 1
		})
		l.SetField(-2, "__tostring")
		l.PushBoolean(false)
		l.SetField(-2, "__metatable")
		l.SetField(lua.RegistryIndex, rc.key)
		l.PushGoFunction(rt.safe(rc.name, func(l *lua.State) int { return rt.raiseClassed(l, rc) }))
		l.SetField(-2, rc.name)
	}
}

func (rt *Runtime) raiseClassed(l *lua.State, rc raisedClass) int {
	msg := CheckString(l, rc.name, 1)
	l.CreateTable(0, 1)
	l.PushString(msg)
	l.SetField(-2, "message")
	l.Field(lua.RegistryIndex, rc.key)
	l.SetMetaTable(-2)
	// Raised as a stash token, like error() does with a table: go-lua
	// only carries strings (see luaError).
	l.PushString(rt.stash(l, -1))
	l.Error()
	return 0
}

// invalidParamsError fills pe from the error value at idx when
// ptywright.invalid_params or ptywright.refuse raised it, and reports
// whether one did.
func (rt *Runtime) invalidParamsError(l *lua.State, idx int, pe *Error) bool {
	idx = l.AbsIndex(idx)
	if !l.IsTable(idx) || !l.MetaTable(idx) {
		return false
	}
	for _, rc := range raisedClasses {
		l.Field(lua.RegistryIndex, rc.key)
		ours := l.RawEqual(-1, -2)
		l.Pop(1)
		if !ours {
			continue
		}
		l.Pop(1)
		l.Field(idx, "message")
		pe.Message, _ = l.ToString(-1)
		l.Pop(1)
		class := rc.class(rt.host.Errors)
		if class == nil {
			class = rt.host.Errors.InvalidParams
		}
		pe.Err = errors.Join(ErrRuntime, class)
		return true
	}
	l.Pop(1)
	return false
}
