package luart

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	lua "ptywright/internal/golua"
	"ptywright/manifest"
)

// The calls the host makes. Every one runs under the runtime's budget in a
// protected call; the owner serialises them.

// Manifest returns a copy of the plugin's manifest.
func (rt *Runtime) Manifest() manifest.Manifest { return *rt.manifest.Clone() }

// Name is the plugin's name.
func (rt *Runtime) Name() string { return rt.manifest.Name }

// HasPermission reports whether the manifest grants p.
func (rt *Runtime) HasPermission(p manifest.Permission) bool { return rt.manifest.HasPermission(p) }

// Closed reports whether Close has run.
func (rt *Runtime) Closed() bool { return rt.closed }

// Close releases the Lua state; later calls fail. Run RunCleanups and
// CallClose first.
func (rt *Runtime) Close() { rt.close() }

// LastOutput returns what the plugin printed during its last call,
// capped at 64 KiB.
func (rt *Runtime) LastOutput() string { return rt.lastOutput() }

// SetScope changes what the instance's events and log lines are tagged
// with, and what ptywright.context() returns.
func (rt *Runtime) SetScope(s Scope) { rt.sdk.scope = s }

// SetEmit changes where the plugin's events go (nil: nowhere).
func (rt *Runtime) SetEmit(emit func(Event)) { rt.sdk.emit = emit }

// SetCallLimits makes the calls until restore use l instead of the
// runtime's limits (a hook's own budget), keeping the memory budget of the
// state.
func (rt *Runtime) SetCallLimits(l Limits) (restore func()) {
	saved := rt.budget.limits
	l.Memory = saved.Memory
	rt.budget.limits = l
	return func() { rt.budget.limits = saved }
}

func (rt *Runtime) redact(s string) string {
	if rt.host.Redact == nil {
		return s
	}
	return rt.host.Redact(s)
}

// Ensure makes the state usable: it fails once closed and replaces a state
// a previous call left untrustworthy.
func (rt *Runtime) Ensure(ctx context.Context) error {
	if rt.closed {
		return &Error{Plugin: rt.manifest.Name, Function: "(call)", Message: "plugin instance is closed", Err: ErrRuntime}
	}
	if rt.l == nil || rt.broken {
		return rt.load(ctx)
	}
	return nil
}

func (rt *Runtime) ensure(ctx context.Context) error { return rt.Ensure(ctx) }

// Exports lists the module's function-valued fields. Call Ensure first.
func (rt *Runtime) Exports() map[string]bool {
	l := rt.l
	out := map[string]bool{}
	l.Field(lua.RegistryIndex, moduleKey)
	l.PushNil()
	for l.Next(-2) {
		if l.TypeOf(-2) == lua.TypeString && l.IsFunction(-1) {
			k, _ := l.ToString(-2)
			out[k] = true
		}
		l.Pop(1)
	}
	l.Pop(1)
	return out
}

func (rt *Runtime) exports() map[string]bool { return rt.Exports() }

// callExport calls module[fn] with the values args pushes and hands its
// first result, on top of the stack, to result.
func (rt *Runtime) callExport(ctx context.Context, fn string, args func(*lua.State) (int, error), result func(*lua.State) error) error {
	return rt.protected(ctx, fn, func(l *lua.State) error {
		l.Field(lua.RegistryIndex, moduleKey)
		l.Field(-1, fn)
		if !l.IsFunction(-1) {
			return fmt.Errorf("the module exports no function %q", fn)
		}
		n, err := args(l)
		if err != nil {
			return err
		}
		l.Call(n, 1)
		return result(l)
	})
}

// Args collects the arguments of one Call.
type Args struct {
	rt *Runtime
	l  *lua.State
	n  int
}

// Go pushes v through its JSON form (struct tags, omitempty), without
// encoding it.
func (a *Args) Go(v any) error {
	if err := pushGo(a.l, reflect.ValueOf(v), 0); err != nil {
		return err
	}
	a.n++
	return nil
}

// JSON pushes a JSON document decoded.
func (a *Args) JSON(raw json.RawMessage) error {
	if err := pushJSON(a.l, raw); err != nil {
		return err
	}
	a.n++
	return nil
}

// Decoded pushes a value of the shape encoding/json decodes into (maps,
// slices, strings, float64 or json.Number, bools, nil).
func (a *Args) Decoded(v any) error {
	if err := pushDecoded(a.l, v, 0); err != nil {
		return err
	}
	a.n++
	return nil
}

// CallContext pushes {plugin, session?, adapter?}, what intents receive
// as their second argument.
func (a *Args) CallContext() {
	a.rt.pushCallContext(a.l)
	a.n++
}

// Call calls the module's exported function fn with the arguments push
// adds and hands its first result to result. A failure is an *Error for
// function fn. Call Ensure first.
func (rt *Runtime) Call(ctx context.Context, fn string, push func(*Args) error, result func(Value) error) error {
	cs := &callState{args: Args{rt: rt}, vc: valueCall{rt: rt}}
	return rt.protected(ctx, fn, func(l *lua.State) error {
		l.Field(lua.RegistryIndex, moduleKey)
		l.Field(-1, fn)
		if !l.IsFunction(-1) {
			return fmt.Errorf("the module exports no function %q", fn)
		}
		cs.args.l = l
		if push != nil {
			if err := push(&cs.args); err != nil {
				return err
			}
		}
		l.Call(cs.args.n, 1)
		cs.vc.l = l
		return result(Value{c: &cs.vc, idx: l.AbsIndex(-1)})
	})
}

// callState is one Call's arguments and result, allocated together.
type callState struct {
	args Args
	vc   valueCall
}

// NameList joins names for messages, or says "none".
func NameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
