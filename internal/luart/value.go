package luart

import (
	"encoding/json"

	lua "ptywright/internal/golua"
)

// Value is a Lua value a call returned (or a field of one), for the host
// to decode with messages in Lua's terms. It is valid only inside the
// result function of the Call that produced it. Conversions to Go share
// one memory-bounded converter per call.
type Value struct {
	c   *valueCall
	idx int
}

type valueCall struct {
	rt   *Runtime
	l    *lua.State
	conv *luaToGo
}

func (c *valueCall) converter() *luaToGo {
	if c.conv == nil {
		c.conv = c.rt.newLuaToGo(c.l)
	}
	return c.conv
}

// Field is v[name] (nil when v is not a table).
func (v Value) Field(name string) Value {
	l := v.c.l
	if !l.IsTable(v.idx) {
		l.PushNil()
	} else {
		l.Field(v.idx, name)
	}
	return Value{c: v.c, idx: l.AbsIndex(-1)}
}

// TypeName is Lua's name of v's type ("nil", "string", "table", ...).
func (v Value) TypeName() string { return lua.TypeNameOf(v.c.l, v.idx) }

// IsNil reports whether v is nil.
func (v Value) IsNil() bool { return v.c.l.IsNil(v.idx) }

// IsString reports whether v is a string (not a number).
func (v Value) IsString() bool { return v.c.l.TypeOf(v.idx) == lua.TypeString }

// IsNumber reports whether v is a number (not a numeric string).
func (v Value) IsNumber() bool { return v.c.l.TypeOf(v.idx) == lua.TypeNumber }

// IsBool reports whether v is a boolean.
func (v Value) IsBool() bool { return v.c.l.TypeOf(v.idx) == lua.TypeBoolean }

// IsTable reports whether v is a table.
func (v Value) IsTable() bool { return v.c.l.IsTable(v.idx) }

// String is v as a string; numbers convert, as in Lua.
func (v Value) String() (string, bool) { return v.c.l.ToString(v.idx) }

// Number is v as a number; numeric strings convert, as in Lua.
func (v Value) Number() (float64, bool) { return v.c.l.ToNumber(v.idx) }

// Bool is v's truth: false only for nil and false.
func (v Value) Bool() bool { return v.c.l.ToBoolean(v.idx) }

// Go converts v to the shape encoding/json decodes into; path names it in
// errors.
func (v Value) Go(path string) (any, error) { return v.c.converter().value(v.idx, path) }

// JSON converts v to a JSON document; path names it in errors.
func (v Value) JSON(path string) (json.RawMessage, error) { return v.c.converter().json(v.idx, path) }

// HookResult reads a hook's return value: Ok(value) or a plain value is
// ok (its JSON form); Err(message) is errMsg (a string or number as is,
// anything else in its JSON form).
func (v Value) HookResult() (ok json.RawMessage, errMsg *string, err error) {
	rt, l := v.c.rt, v.c.l
	conv := rt.newLuaToGo(l)
	idx := v.idx
	if rt.isResult(l, idx) {
		l.Field(idx, "err")
		if !l.IsNil(-1) {
			msg, err := errMessage(l, conv)
			if err != nil {
				return nil, nil, err
			}
			return nil, &msg, nil
		}
		l.Pop(1)
		l.Field(idx, "ok")
		idx = l.AbsIndex(-1)
	}
	raw, err := conv.json(idx, "result")
	rt.budget.charge(l, int64(conv.nodes*nodeCost))
	if err != nil {
		return nil, nil, err
	}
	return raw, nil, nil
}

// errMessage reads Err's message on top of the stack: a string or number
// as is, anything else in its JSON form.
func errMessage(l *lua.State, conv *luaToGo) (string, error) {
	switch l.TypeOf(-1) {
	case lua.TypeString, lua.TypeNumber:
		s, _ := l.ToString(-1)
		return s, nil
	}
	raw, err := conv.json(-1, "Err message")
	return string(raw), err
}

// MarshalJSON encodes a value of the shape Value.Go returns.
func MarshalJSON(v any) (json.RawMessage, error) { return marshalJSON(v) }

// DecodeJSON decodes raw as Lua will see it (numbers kept exact); an
// empty document is nil.
func DecodeJSON(raw []byte) (any, error) { return decodeJSON(raw) }

// CheckNumbers refuses numbers in v that Lua cannot hold exactly, naming
// the path.
func CheckNumbers(v any, path string) error { return checkNumbers(v, path) }
