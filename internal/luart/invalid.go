package luart

import (
	"errors"

	lua "github.com/Shopify/go-lua"
)

// ptywright.invalid_params(message) lets a plugin say that the caller's
// params are wrong (a missing prompt, a string where a number belongs), as
// opposed to the plugin itself failing: the *Error it becomes wraps
// the host's InvalidParams class as well as ErrRuntime, so a JSON-RPC client gets
// -32602 instead of -32603. It raises a table {message = message} whose
// metatable is the host's own (the one thing a plugin cannot forge by
// accident), so it survives pcall and a re-raise with error(e), and
// tostring(e) is the message.

// invalidParamsKey is the registry key of the metatable that marks an
// error value raised by ptywright.invalid_params.
const invalidParamsKey = "ptywright.invalid_params"

// installInvalidParams sets invalid_params on the ptywright table on top of
// the stack.
func (rt *Runtime) installInvalidParams(l *lua.State) {
	l.CreateTable(0, 2)
	l.PushGoFunction(func(l *lua.State) int {
		l.Field(1, "message")
		return 1
	})
	l.SetField(-2, "__tostring")
	l.PushBoolean(false)
	l.SetField(-2, "__metatable")
	l.SetField(lua.RegistryIndex, invalidParamsKey)
	l.PushGoFunction(rt.safe("invalid_params", rt.raiseInvalidParams))
	l.SetField(-2, "invalid_params")
}

func (rt *Runtime) raiseInvalidParams(l *lua.State) int {
	msg := CheckString(l, "invalid_params", 1)
	l.CreateTable(0, 1)
	l.PushString(msg)
	l.SetField(-2, "message")
	l.Field(lua.RegistryIndex, invalidParamsKey)
	l.SetMetaTable(-2)
	// Raised as a stash token, like error() does with a table: go-lua
	// only carries strings (see luaError).
	l.PushString(rt.stash(l, -1))
	l.Error()
	return 0
}

// invalidParamsError fills pe from the error value at idx when
// ptywright.invalid_params raised it, and reports whether it did.
func (rt *Runtime) invalidParamsError(l *lua.State, idx int, pe *Error) bool {
	idx = l.AbsIndex(idx)
	if !l.IsTable(idx) || !l.MetaTable(idx) {
		return false
	}
	l.Field(lua.RegistryIndex, invalidParamsKey)
	ours := l.RawEqual(-1, -2)
	l.Pop(2)
	if !ours {
		return false
	}
	l.Field(idx, "message")
	pe.Message, _ = l.ToString(-1)
	l.Pop(1)
	pe.Err = errors.Join(ErrRuntime, rt.host.Errors.InvalidParams)
	return true
}
