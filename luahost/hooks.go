package luahost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"ptywright"
	"ptywright/internal/luart"
	"ptywright/internal/wire"
	"ptywright/manifest"
)

// Hook call budgets.
const (
	// DefaultHookTimeout bounds a hook call that names no timeout.
	DefaultHookTimeout = 10 * time.Second
	// MaxHookTimeout is the most a hook call may ask for.
	MaxHookTimeout = 60 * time.Second
	// DefaultHookInstructions is a hook call's instruction budget when it
	// names none: about 6 s of Lua on these machines, so a hook doing real
	// work meets its timeout first, and a loop that allocates nothing
	// still ends with a budget error, as every plugin call does.
	DefaultHookInstructions = 1_000_000_000
	// InlinePluginName is the name an inline script runs under (in its
	// errors and log lines).
	InlinePluginName = "inline"
)

// HookOptions tune one hook call.
type HookOptions struct {
	// Timeout bounds the call's wall-clock time: 0 means
	// DefaultHookTimeout, more than MaxHookTimeout means MaxHookTimeout,
	// negative is invalid. A deadline on the call's context applies too.
	Timeout time.Duration
	// Instructions is the call's Lua instruction budget: 0 means
	// DefaultHookInstructions (a hook is an explicit call its caller waits
	// for, so it gets more than classify and the other host-loop calls).
	// The call ends at whichever budget runs out first.
	Instructions int64
}

// timeout is the effective timeout.
func (o HookOptions) timeout() (time.Duration, error) {
	switch {
	case o.Timeout < 0:
		return 0, fmt.Errorf("%w: timeout: %s is negative", ptywright.ErrInvalidParams, o.Timeout)
	case o.Timeout == 0:
		return DefaultHookTimeout, nil
	}
	return min(o.Timeout, MaxHookTimeout), nil
}

// HookResult is what a hook returned. A hook returns Ok(value) for
// success, Err(message) for a failure it reports, or any other value,
// which counts as Ok(value). A Lua error raised by the hook is not a
// result: the call fails with a *Error.
//
// Its JSON form is {"ok": value} or {"err": "message"}, plus "output"
// when the hook printed anything.
type HookResult struct {
	// Ok is the JSON of the value (null for Ok(nil) or no return value);
	// nil when Err is set.
	Ok json.RawMessage
	// Err is the message of Err(message).
	Err *string
	// Output is what the hook wrote with print (capped at 64 KiB).
	Output string
}

// MarshalJSON writes {"ok": value} or {"err": message}, with "output" when
// not empty.
func (r HookResult) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if r.Err != nil {
		msg, err := json.Marshal(*r.Err)
		if err != nil {
			return nil, err
		}
		b.WriteString(`{"err":`)
		b.Write(msg)
	} else {
		ok := r.Ok
		if len(bytes.TrimSpace(ok)) == 0 {
			ok = json.RawMessage("null")
		}
		b.WriteString(`{"ok":`)
		b.Write(ok)
	}
	if r.Output != "" {
		out, err := json.Marshal(r.Output)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"output":`)
		b.Write(out)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (r *HookResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Ok     json.RawMessage `json:"ok"`
		Err    *string         `json:"err"`
		Output string          `json:"output"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = HookResult{Ok: w.Ok, Err: w.Err, Output: w.Output}
	if r.Err == nil && r.Ok == nil {
		r.Ok = json.RawMessage("null")
	}
	return nil
}

// CallHook calls the plugin's exported function hook with args, a JSON
// array of positional arguments (absent or null: none), and returns what
// it returned. Any exported function can be called except close, which
// only Close calls. Calls are serialised with the instance's other calls,
// so a long hook holds them up.
func (e *Extension) CallHook(ctx context.Context, hook string, args json.RawMessage, opts HookOptions) (HookResult, error) {
	if !manifest.IsHookName(hook) {
		return HookResult{}, fmt.Errorf("%w: hook: %q is not a Lua function name", ptywright.ErrInvalidParams, hook)
	}
	if hook == "close" {
		return HookResult{}, fmt.Errorf("%w: hook: close is the plugin's shutdown hook and runs only when the instance closes", ptywright.ErrInvalidParams)
	}
	list, err := hookArgs(args)
	if err != nil {
		return HookResult{}, err
	}
	timeout, err := opts.timeout()
	if err != nil {
		return HookResult{}, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	deadline := time.Now().Add(timeout)
	d, ok := ctx.Deadline()
	callersDeadline := ok && !d.After(deadline)
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	e.mu.Lock()
	defer e.mu.Unlock()
	rt := e.rt
	if err := rt.Ensure(cctx); err != nil {
		return HookResult{}, err
	}
	exports := rt.Exports()
	if !exports[hook] {
		return HookResult{}, fmt.Errorf("%w: hook: plugin %s exports no function %q (exports: %s)", ptywright.ErrInvalidParams, rt.Name(), hook, luart.NameList(luart.SortedNames(exports)))
	}
	instr := opts.Instructions
	if instr <= 0 {
		instr = DefaultHookInstructions
	}
	defer rt.SetCallLimits(Limits{Instructions: instr, Timeout: timeout})()
	var res HookResult
	err = rt.Call(cctx, hook, func(a *luart.Args) error {
		for i, v := range list {
			if err := a.Decoded(v); err != nil {
				return fmt.Errorf("args[%d]: %w", i, err)
			}
		}
		return nil
	}, func(v luart.Value) (err error) {
		res.Ok, res.Err, err = v.HookResult()
		return err
	})
	if err != nil {
		if errors.Is(err, ptywright.ErrTimeout) && !callersDeadline {
			return HookResult{}, fmt.Errorf("plugin %s: hook %q timed out after %s: %w", rt.Name(), hook, timeout, err)
		}
		return HookResult{}, err
	}
	res.Output = rt.LastOutput()
	return res, nil
}

// hookArgs decodes a JSON array of arguments.
func hookArgs(args json.RawMessage) ([]any, error) {
	v, err := luart.DecodeJSON(args)
	if err != nil {
		return nil, fmt.Errorf("%w: args: %v", ptywright.ErrInvalidParams, err)
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		// Refused before the call, naming the argument, rather than
		// rounded on the way into Lua.
		if err := luart.CheckNumbers(v, "args"); err != nil {
			return nil, fmt.Errorf("%w: %v", ptywright.ErrInvalidParams, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("%w: args: want a JSON array of positional arguments, got %s", ptywright.ErrInvalidParams, wire.Kind(args))
}

// CallInline loads source as a one-shot script named InlinePluginName,
// calls hook with args and closes the script (running its cleanups). The
// script is a module like a plugin's entrypoint, or just defines global
// functions; it runs with no permissions beyond pure Lua: the sandbox's
// libraries, print, Ok and Err, and the ptywright table's json and re
// helpers, without actions, matchers, emit, on, on_cleanup or log. The
// load runs under lo.Limits (lo.Events and lo.Scope are not used), the
// hook under opts. Only trusted callers should reach it (the JSON-RPC
// server requires --allow-plugin-load).
func CallInline(ctx context.Context, source, hook string, args json.RawMessage, lo Options, opts HookOptions) (HookResult, error) {
	if strings.TrimSpace(source) == "" {
		return HookResult{}, fmt.Errorf("%w: source: empty script", ptywright.ErrInvalidParams)
	}
	m := manifest.Manifest{Name: InlinePluginName, Kind: manifest.KindMacro, Version: "0", Runtime: manifest.RuntimeLua, Entrypoint: "inline.lua"}
	ext, err := newExtension(m, []byte(source), Options{Limits: lo.Limits, Logger: lo.Logger}, true)
	if err != nil {
		return HookResult{}, err
	}
	defer func() { _ = ext.Close() }() // Never fails: failures are logged.
	return ext.CallHook(ctx, hook, args, opts)
}

// CheckDeclared fails, with a *manifest.Error naming the field, on hooks
// and intents the manifest declares but the module does not export. The
// plugin registry calls it when a plugin is registered, to fail fast., when a plugin is registered, on hooks and
// intents its manifest declares but its module does not export.
func (e *Extension) CheckDeclared() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.rt.Manifest()
	if len(m.Hooks) == 0 && len(m.Intents) == 0 {
		return nil
	}
	if err := e.rt.Ensure(context.Background()); err != nil {
		return err
	}
	exports := e.rt.Exports()
	for _, list := range []struct {
		field, kind string
		names       []string
	}{{"hooks", "hook", m.Hooks}, {"intents", "intent", m.Intents}} {
		for i, name := range list.names {
			if !exports[name] {
				return manifest.FieldError(fmt.Sprintf("%s[%d]", list.field, i), "%s %q is declared but the plugin exports no such function", list.kind, name)
			}
		}
	}
	return nil
}
