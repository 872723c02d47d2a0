package luahost

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/luart"
	"ptywright/manifest"
)

// Errors of the plugin host. Calls into a plugin fail with a *Error
// wrapping one of them (or ptywright.ErrCancelled / ptywright.ErrTimeout when the caller's
// context ended the call).
var (
	// ErrBudget: a call used up its instruction or wall-clock budget
	// (see Limits).
	ErrBudget = luart.ErrBudget
	// ErrRuntime: the plugin raised a Lua error, returned something
	// the host cannot use, or does not export the function called.
	ErrRuntime = luart.ErrRuntime
	// ErrMemory is the ErrBudget of a plugin that went over
	// its memory budget (Limits.Memory): errors.Is(err,
	// ErrBudget) holds for it too.
	ErrMemory = luart.ErrMemory
)

// Error is a failed call into a plugin: Plugin, Function (what the
// host called: "classify", an intent, a wait matcher, a predicate,
// "describe", or "(load)" for the chunk itself), Message (like Lua's own,
// "echo/main.lua:12: attempt to index a nil value", or the JSON form of a
// non-string error value), Value (a non-string error value converted to
// Go), Traceback (Lua's, where the error was raised) and Err, the class:
// ErrRuntime, ErrBudget, ptywright.ErrCancelled or ptywright.ErrTimeout, possibly
// joined with a more precise cause (ptywright.ErrInvalidParams, ErrInvalidAction,
// ErrInvalidMatcher, ErrPermissionDenied).
type Error = luart.Error

// Limits bound every call the host makes into a plugin (classify, an
// intent, a wait matcher, a predicate, describe, and the chunk itself when
// it loads), and the memory its state holds. A call over any budget fails
// with an error wrapping ErrBudget; the plugin cannot catch it with
// pcall. Fields: Instructions (the Lua VM instruction budget, 0 means 5
// million, about 30 ms of go-lua; work inside host functions is charged
// too), Timeout (wall clock, 0 means 5 s; a deadline on the call's context
// also stops it) and Memory (bytes one instance's state may hold, 0 means
// 64 MiB, capped at 1 GiB; a call going over fails with ErrMemory
// and the instance is replaced by a fresh one). Strings built by
// string.rep and table.concat are capped at 16 MiB. plugins.Registry's
// Capabilities reports these defaults.
type Limits = luart.Limits

// MaxStringBytes caps the strings a plugin builds with string.rep and
// table.concat, whatever its memory budget.
const MaxStringBytes = luart.MaxStringBytes

// maxEventDepth bounds chains of handlers emitting events that other
// handlers handle and emit from in turn, so two plugins answering each
// other cannot loop forever: an event emitted from a handler of an event
// this many generations removed from its first cause is dropped.
const maxEventDepth = 8

// luaHost is what every Lua runtime may reach of the library.
var luaHost = &luart.Host{
	Errors:      luart.Classes{Timeout: ptywright.ErrTimeout, Cancelled: ptywright.ErrCancelled, InvalidParams: ptywright.ErrInvalidParams, Refused: ptywright.ErrIntentRefused},
	Version:     ptywright.Version,
	ParseKey:    func(name string) error { _, err := ptywright.ParseKey(name); return err },
	ParseSignal: func(name string) error { _, err := ptywright.ParseSignal(name); return err },
	CheckSize: func(rows, cols int) (int, error) {
		err := ptywright.Size{Rows: rows, Cols: cols}.Validate()
		var fe *ptywright.FieldError
		if errors.As(err, &fe) && fe.Field == "cols" {
			return 2, err
		}
		return 1, err
	},
	Redact:        func(s string) string { return ptywright.DefaultRedactor().Redact(s) },
	CoreEvents:    events.CoreNames(),
	MaxEventDepth: maxEventDepth,
	EventTime:     events.Timestamp,
}

// Extension is a ptywright.Extension whose vocabulary lives in a Lua
// plugin. The plugin's entrypoint returns a module table; the host calls
// its exported functions:
//
//	classify(ctx)        -> {state, confidence?, evidence?, metadata?, last_intent?}
//	<intent>(params)     -> {actions = {...}?, last_intent = "..."?, expect?,
//	                         retry?, resend?, await = {states = {...}, within_ms?}?}
//	<name>_matcher(params) -> a matcher table (ptywright.matcher.*)
//	<predicate>(input)   -> boolean or {matched, evidence?, capture?}
//	describe()           -> {intents, wait_matchers, states} (optional)
//
// ctx is ClassifyContext in its JSON form (absent fields are nil). Action
// and matcher tables are decoded through Action's and Matcher's JSON forms,
// so they are validated exactly as a JSON-RPC client's would be; a plan may
// only contain actions the manifest has permission for.
//
// An intent may raise ptywright.invalid_params(message) (the caller's
// params are wrong: ErrInvalidParams) or ptywright.refuse(message) (the
// screen does not allow it now: ErrIntentRefused); any other error is the
// plugin's own failure. A plan's await holds its keys until the screen's
// state is one of the states, then plans again on that screen; see
// ptywright.ActionPlan.Await.
//
// Each Extension owns one Lua state, so module-level values persist
// between its calls and are not shared with any other instance. Calls are
// serialised and bounded by Limits. After an instruction or time
// budget error the state is kept; after a memory budget error, a stack
// overflow or an interpreter failure the next call transparently runs on
// a fresh instance, without the old module-level values.
type Extension struct {
	mu sync.Mutex // guards rt and bus; see the lock order in ptywright's doc.go
	rt *luart.Runtime
	// bus is where what the plugin emits goes (nil: nowhere).
	bus *events.Bus

	events luaEvents // handler dispatch (events.go)
}

// The handle finds these by type assertion, so a signature that drifts
// would silently turn them off: the compiler checks them here.
var (
	_ ptywright.Extension = (*Extension)(nil)
	_ ptywright.Explainer = (*Extension)(nil)
	_ ptywright.Projector = (*Extension)(nil)
	_ ptywright.Cleaner   = (*Extension)(nil)
	_ events.Binder       = (*Extension)(nil)
)

// Options tune a Extension.
type Options struct {
	// Limits bound every call; the zero value means the defaults.
	Limits Limits
	// Events, when set, carries what the plugin emits and the events its
	// handlers receive; nil leaves ptywright.emit a no-op and handlers
	// idle until BindEvents.
	Events *events.Bus
	// Scope tags the events the instance emits and its log lines.
	Scope events.Scope
	// Logger receives the plugin's ptywright.log records and its handler
	// and cleanup failures, with plugin=<name> attached; nil means
	// slog.Default().
	Logger *slog.Logger
}

// New validates m, loads source (the entrypoint's text) into a
// fresh Lua state and runs it under the call budget. A syntax error, a
// runtime error or a chunk that does not return a table is a *Error
// for function "(load)".
func New(m manifest.Manifest, source []byte, opts Options) (*Extension, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Runtime != manifest.RuntimeLua {
		return nil, manifest.FieldError("runtime", "runtime %q cannot run in the Lua host", m.Runtime)
	}
	return newExtension(m, source, opts, false)
}

func newExtension(m manifest.Manifest, source []byte, opts Options, inline bool) (*Extension, error) {
	e := &Extension{bus: opts.Events}
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
func (e *Extension) emit(ev luart.Event) {
	if e.bus == nil {
		return
	}
	// The runtime checked the name; Emit fails only on a bad one.
	_ = e.bus.Emit(events.Event{
		Name:    ev.Name,
		Plugin:  ev.Plugin,
		Session: ev.Session,
		Adapter: ev.Adapter,
		Payload: ev.Payload,
		Time:    ev.Time,
		Source:  e,
		Depth:   ev.Depth,
	})
}

// Manifest returns a copy of the plugin's manifest.
func (e *Extension) Manifest() manifest.Manifest { return e.rt.Manifest() }

// LastOutput returns what the plugin printed during its last call (print
// never reaches the host's stdout), capped at 64 KiB.
func (e *Extension) LastOutput() string {
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
func (e *Extension) Close() error {
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
		e.rt.Logger().Warn("plugin shutdown failed", "err", ptywright.DefaultRedactor().Redact(err.Error()))
	}
	e.rt.Close()
	return nil
}
