package ptywright

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"ptywright/internal/luart"
	"ptywright/manifest"
)

// The Lua host's public face. The sandbox itself (the go-lua state, its
// libraries, the ptywright.* host table, budgets, Lua↔Go conversion and
// the runtime SDK) lives in internal/luart, which reaches this package
// only through the luart.Host built here and the callbacks each
// LuaExtension passes in.

// Errors of the plugin host. Calls into a plugin fail with a *PluginError
// wrapping one of them (or ErrCancelled / ErrTimeout when the caller's
// context ended the call).
var (
	// ErrPluginBudget: a call used up its instruction or wall-clock budget
	// (see PluginLimits).
	ErrPluginBudget = luart.ErrBudget
	// ErrPluginRuntime: the plugin raised a Lua error, returned something
	// the host cannot use, or does not export the function called.
	ErrPluginRuntime = luart.ErrRuntime
	// ErrPluginMemory is the ErrPluginBudget of a plugin that went over
	// its memory budget (PluginLimits.Memory): errors.Is(err,
	// ErrPluginBudget) holds for it too.
	ErrPluginMemory = luart.ErrMemory
)

// PluginError is a failed call into a plugin: Plugin, Function (what the
// host called: "classify", an intent, a wait matcher, a predicate,
// "describe", or "(load)" for the chunk itself), Message (like Lua's own,
// "echo/main.lua:12: attempt to index a nil value", or the JSON form of a
// non-string error value), Value (a non-string error value converted to
// Go), Traceback (Lua's, where the error was raised) and Err, the class:
// ErrPluginRuntime, ErrPluginBudget, ErrCancelled or ErrTimeout, possibly
// joined with a more precise cause (ErrInvalidParams, ErrInvalidAction,
// ErrInvalidMatcher, ErrPermissionDenied).
type PluginError = luart.Error

// PluginLimits bound every call the host makes into a plugin (classify, an
// intent, a wait matcher, a predicate, describe, and the chunk itself when
// it loads), and the memory its state holds. A call over any budget fails
// with an error wrapping ErrPluginBudget; the plugin cannot catch it with
// pcall. Fields: Instructions (the Lua VM instruction budget, 0 means 5
// million, about 30 ms of go-lua; work inside host functions is charged
// too), Timeout (wall clock, 0 means 5 s; a deadline on the call's context
// also stops it) and Memory (bytes one instance's state may hold, 0 means
// 64 MiB, capped at 1 GiB; a call going over fails with ErrPluginMemory
// and the instance is replaced by a fresh one). Strings built by
// string.rep and table.concat are capped at 16 MiB. plugins.Registry's
// Capabilities reports these defaults.
type PluginLimits = luart.Limits

// luaHost is what every Lua runtime may reach of this package.
var luaHost = &luart.Host{
	Errors:      luart.Classes{Timeout: ErrTimeout, Cancelled: ErrCancelled, InvalidParams: ErrInvalidParams},
	Version:     Version,
	ParseKey:    func(name string) error { _, err := ParseKey(name); return err },
	ParseSignal: func(name string) error { _, err := ParseSignal(name); return err },
	CheckSize: func(rows, cols int) (int, error) {
		err := Size{Rows: rows, Cols: cols}.Validate()
		var fe *FieldError
		if errors.As(err, &fe) && fe.Field == "cols" {
			return 2, err
		}
		return 1, err
	},
	Redact:        func(s string) string { return DefaultRedactor().Redact(s) },
	CoreEvents:    CoreEventNames(),
	MaxEventDepth: maxEventDepth,
	EventTime:     EventTime,
}

// LuaExtension is an Extension whose vocabulary lives in a Lua plugin. The
// plugin's entrypoint returns a module table; the host calls its exported
// functions:
//
//	classify(ctx)        -> {state, confidence?, evidence?, metadata?, last_intent?}
//	<intent>(params)     -> {actions = {...}?, last_intent = "..."?}
//	<name>_matcher(params) -> a matcher table (ptywright.matcher.*)
//	<predicate>(input)   -> boolean or {matched, evidence?, capture?}
//	describe()           -> {intents, wait_matchers, states} (optional)
//
// ctx is ClassifyContext in its JSON form (absent fields are nil). Action
// and matcher tables are decoded through Action's and Matcher's JSON forms,
// so they are validated exactly as a JSON-RPC client's would be; a plan may
// only contain actions the manifest has permission for.
//
// Each LuaExtension owns one Lua state, so module-level values persist
// between its calls and are not shared with any other instance. Calls are
// serialised and bounded by PluginLimits. After an instruction or time
// budget error the state is kept; after a memory budget error, a stack
// overflow or an interpreter failure the next call transparently runs on
// a fresh instance, without the old module-level values.
type LuaExtension struct {
	mu sync.Mutex // guards rt and bus; see the lock order in doc.go
	rt *luart.Runtime
	// bus is where what the plugin emits goes (nil: nowhere).
	bus *EventBus

	events luaEvents // handler dispatch (luaevents.go)
}

// LuaOptions tune a LuaExtension.
type LuaOptions struct {
	// Limits bound every call; the zero value means the defaults.
	Limits PluginLimits
	// Events, when set, carries what the plugin emits and the events its
	// handlers receive; nil leaves ptywright.emit a no-op and handlers
	// idle until BindEvents.
	Events *EventBus
	// Scope tags the events the instance emits and its log lines.
	Scope EventScope
	// Logger receives the plugin's ptywright.log records and its handler
	// and cleanup failures, with plugin=<name> attached; nil means
	// slog.Default().
	Logger *slog.Logger
}

// NewLuaExtension validates m, loads source (the entrypoint's text) into a
// fresh Lua state and runs it under the call budget. A syntax error, a
// runtime error or a chunk that does not return a table is a *PluginError
// for function "(load)".
func NewLuaExtension(m manifest.Manifest, source []byte, opts LuaOptions) (*LuaExtension, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Runtime != manifest.RuntimeLua {
		return nil, manifest.FieldError("runtime", "runtime %q cannot run in the Lua host", m.Runtime)
	}
	return newLuaExtension(m, source, opts, false)
}

func newLuaExtension(m manifest.Manifest, source []byte, opts LuaOptions, inline bool) (*LuaExtension, error) {
	e := &LuaExtension{bus: opts.Events}
	rt, err := luart.New(context.Background(), luart.Config{
		Manifest: m,
		Source:   source,
		Limits:   opts.Limits,
		Host:     luaHost,
		Inline:   inline,
		Scope:    luart.Scope(opts.Scope),
		Logger:   opts.Logger,
		Emit:     e.emit,
		Handled:  e.events.setHandled,
	})
	if err != nil {
		return nil, err
	}
	e.rt = rt
	if opts.Events != nil {
		e.events.subscribe(opts.Events, e)
	}
	return e, nil
}

// emit is the runtime's Emit: it runs inside a call, under e.mu.
func (e *LuaExtension) emit(ev luart.Event) {
	if e.bus == nil {
		return
	}
	e.bus.deliver(Event{
		Name:    ev.Name,
		Plugin:  ev.Plugin,
		Session: ev.Session,
		Adapter: ev.Adapter,
		Payload: ev.Payload,
		Time:    ev.Time,
		origin:  e,
		depth:   ev.Depth,
	})
}

// Manifest returns a copy of the plugin's manifest.
func (e *LuaExtension) Manifest() manifest.Manifest { return e.rt.Manifest() }

// LastOutput returns what the plugin printed during its last call (print
// never reaches the host's stdout), capped at 64 KiB.
func (e *LuaExtension) LastOutput() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rt.LastOutput()
}

// Close shuts the instance down: it stops delivering events to its
// handlers, runs the cleanups still pending (newest first, each once,
// each under the call budget), calls the plugin's close() export if it has
// one, and releases the Lua state. Later calls fail. Failures of the
// plugin's cleanups and close() are logged through its logger, not
// returned: the instance is closed either way.
func (e *LuaExtension) Close() error {
	e.events.stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rt.Closed() {
		return nil
	}
	ctx := context.Background()
	errs := e.rt.RunCleanups(ctx)
	if err := e.rt.CallClose(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, err := range errs {
		e.rt.Logger().Warn("plugin shutdown failed", "err", DefaultRedactor().Redact(err.Error()))
	}
	e.rt.Close()
	return nil
}
