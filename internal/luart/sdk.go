package luart

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"ptywright/events"
	lua "ptywright/internal/golua"
	"ptywright/internal/secrets"
)

// The runtime SDK: what the core offers a plugin beyond classify, intents
// and matchers, translated from the browser-centric runtime contract to
// terminal sessions:
//
//	ptywright.emit(event, payload?)    fire-and-forget, as "<plugin>:<event>"
//	ptywright.on(event, fn)            fn(payload, meta) for a core or plugin event
//	ptywright.on_cleanup(fn)           run once when the instance shuts down,
//	                                   its program exits, or its state fails
//	ptywright.context()                {plugin, session?, adapter?} of this instance
//	ptywright.log.debug/info/warn/error(msg, fields?)  "[<plugin>] msg"
//	Ok(value), Err(message)            hook results (globals)
//
// A state that fails (a stack overflow, its memory budget, an interpreter
// failure) is replaced by a fresh one for the next call; the cleanups it
// registered run in it first (see salvageCleanups), and the fresh state's
// module chunk registers its own.
//
// An inline one-shot script (luahost.CallInline) gets none of the
// ptywright.* SDK functions, only Ok and Err.

// Registry keys of the SDK's tables.
const (
	cleanupsKey   = "ptywright.cleanups"
	handlersKey   = "ptywright.handlers"
	resultMetaKey = "ptywright.result"
)

const (
	// maxCleanups bounds the cleanups pending on one instance, so a plugin
	// registering one per classify cannot grow without bound.
	maxCleanups = 256
	// maxHandlers bounds the handlers of one instance, all events together.
	maxHandlers = 256
)

// luaSDK is a runtime's SDK state. It is guarded like the rest of the
// runtime, by the owning extension's lock.
type luaSDK struct {
	// inline: a one-shot script, without emit, on, on_cleanup and log.
	inline bool
	// emit delivers what the plugin emits (nil: nowhere).
	emit  func(Event)
	scope Scope
	log   *slog.Logger // nil means slog.Default()
	// depth is the generation of the event whose handler is running (0
	// outside handlers); events emitted meanwhile are one further.
	depth int
	// cleanups is how many registrations the state's cleanup table holds
	// (some may have run and be nil).
	cleanups int
	// handlers counts the handlers per event in the state.
	handlers map[string]int
	// handled, when set, is told which events have handlers after on()
	// changes them and when the state is replaced.
	handled func(map[string]bool)
}

// resetSDK forgets the per-state registrations before a (re)load; the
// module chunk registers its handlers and cleanups again.
func (rt *Runtime) resetSDK() {
	if n := rt.pendingCleanups(); n > 0 {
		rt.Logger().Warn("plugin state replaced after a failure; its cleanups are lost", "cleanups", n)
	}
	rt.sdk.cleanups = 0
	rt.sdk.handlers = map[string]int{}
	rt.publishHandled()
}

// pendingCleanups counts the cleanups registered and not yet run.
func (rt *Runtime) pendingCleanups() int {
	if rt.sdk.cleanups == 0 || rt.l == nil {
		return rt.sdk.cleanups
	}
	l := rt.l
	n := 0
	l.Field(lua.RegistryIndex, cleanupsKey)
	if l.IsTable(-1) {
		for i := 1; i <= rt.sdk.cleanups; i++ {
			l.RawGetInt(-1, i)
			if !l.IsNil(-1) {
				n++
			}
			l.Pop(1)
		}
	}
	l.Pop(1)
	return n
}

func (rt *Runtime) publishHandled() {
	if rt.sdk.handled == nil {
		return
	}
	set := make(map[string]bool, len(rt.sdk.handlers))
	for name, n := range rt.sdk.handlers {
		if n > 0 {
			set[name] = true
		}
	}
	rt.sdk.handled(set)
}

// Logger is the plugin's logger: the host's, with plugin=<name> and the
// instance's adapter and session attached.
func (rt *Runtime) Logger() *slog.Logger {
	log := rt.sdk.log
	if log == nil {
		log = slog.Default()
	}
	attrs := []any{"plugin", rt.manifest.Name}
	if rt.sdk.scope.Adapter != "" {
		attrs = append(attrs, "adapter", rt.sdk.scope.Adapter)
	}
	if rt.sdk.scope.Session != "" {
		attrs = append(attrs, "session", rt.sdk.scope.Session)
	}
	return log.With(attrs...)
}

// installSDK adds emit, on, on_cleanup and log to the ptywright table on
// top of the stack.
func (rt *Runtime) installSDK(l *lua.State) {
	l.NewTable()
	l.SetField(lua.RegistryIndex, cleanupsKey)
	l.NewTable()
	l.SetField(lua.RegistryIndex, handlersKey)
	for _, f := range []lua.RegistryFunction{
		{Name: "emit", Function: rt.luaEmit},
		{Name: "on", Function: rt.luaOn},
		{Name: "on_cleanup", Function: rt.luaOnCleanup},
		{Name: "context", Function: rt.luaContext},
	} {
		l.PushGoFunction(rt.safe(f.Name, f.Function))
		l.SetField(-2, f.Name)
	}
	rt.newSafeLibrary(l, "log.", []lua.RegistryFunction{
		{Name: "debug", Function: rt.luaLog("debug", slog.LevelDebug)},
		{Name: "info", Function: rt.luaLog("info", slog.LevelInfo)},
		{Name: "warn", Function: rt.luaLog("warn", slog.LevelWarn)},
		{Name: "error", Function: rt.luaLog("error", slog.LevelError)},
	})
	l.SetField(-2, "log")
}

// The call context.

// pushCallContext pushes {plugin, session?, adapter?}: the plugin's name
// and the host's ids of the session and adapter the instance serves (its
// EventScope), absent when it serves none (the registry's hook and
// predicate instances). Intents receive it as their second argument;
// ptywright.context() returns it to any call, hooks and handlers included.
func (rt *Runtime) pushCallContext(l *lua.State) {
	l.CreateTable(0, 3)
	l.PushString(rt.manifest.Name)
	l.SetField(-2, "plugin")
	if rt.sdk.scope.Session != "" {
		l.PushString(rt.sdk.scope.Session)
		l.SetField(-2, "session")
	}
	if rt.sdk.scope.Adapter != "" {
		l.PushString(rt.sdk.scope.Adapter)
		l.SetField(-2, "adapter")
	}
}

// luaContext is ptywright.context(): a fresh call-context table.
func (rt *Runtime) luaContext(l *lua.State) int {
	rt.pushCallContext(l)
	return 1
}

// Events.

// eventName resolves what a plugin passes to emit: "ready" and
// "<plugin>:ready" both mean "<plugin>:ready"; another namespace, a core
// one included, is refused, as is a name the manifest's events.emits (when
// it lists any) does not declare.
func (rt *Runtime) eventName(name string) (string, error) {
	full := name
	if !strings.Contains(name, ":") {
		full = rt.manifest.Name + ":" + name
	}
	ns, _, ok := events.SplitName(full)
	switch {
	case !ok:
		return "", fmt.Errorf("event %q must be \"<event>\" or \"%s:<event>\" in lowercase letters, digits, '-' and '_'", name, rt.manifest.Name)
	case events.IsHostNamespace(ns):
		return "", fmt.Errorf("event %q is in the core namespace %q, which plugins may not emit", name, ns)
	case ns != rt.manifest.Name:
		return "", fmt.Errorf("event %q is outside the plugin's namespace %q", name, rt.manifest.Name+":")
	}
	if ev := rt.manifest.Events; ev != nil && len(ev.Emits) > 0 && !slices.Contains(ev.Emits, full) {
		return "", fmt.Errorf("event %q is not declared in the manifest's events.emits (%s)", full, NameList(ev.Emits))
	}
	return full, nil
}

// luaEmit is ptywright.emit(event, payload?): it returns at once; the
// payload is converted (copied) now.
func (rt *Runtime) luaEmit(l *lua.State) int {
	name := CheckString(l, "emit", 1)
	full, err := rt.eventName(name)
	if err != nil {
		ArgError(l, "emit", 1, err.Error())
	}
	payload := json.RawMessage("null")
	if !l.IsNoneOrNil(2) {
		conv := rt.newLuaToGo(l)
		raw, err := conv.json(2, "payload")
		rt.budget.charge(l, int64(conv.nodes*nodeCost))
		if err != nil {
			ArgError(l, "emit", 2, err.Error())
		}
		rt.budget.chargeBytes(l, len(raw))
		payload = raw
	}
	if rt.sdk.emit == nil {
		return 0
	}
	if rt.sdk.depth > rt.host.MaxEventDepth {
		rt.Logger().Warn("event dropped: emitted from a chain of handlers too long (a loop?)", "event", full, "depth", rt.sdk.depth)
		return 0
	}
	rt.sdk.emit(Event{
		Name:    full,
		Plugin:  rt.manifest.Name,
		Session: rt.sdk.scope.Session,
		Adapter: rt.sdk.scope.Adapter,
		Payload: payload,
		Time:    time.Now(),
		Depth:   rt.sdk.depth,
	})
	return 0
}

// luaOn is ptywright.on(event, fn): fn(payload, meta) runs for every event
// of that name on the bus, except the instance's own, after the event and
// never inside the emitter's call. meta is {event, plugin?, session?,
// adapter?, timestamp}.
func (rt *Runtime) luaOn(l *lua.State) int {
	name := CheckString(l, "on", 1)
	if _, _, ok := events.SplitName(name); !ok {
		ArgError(l, "on", 1, fmt.Sprintf("event %q must be \"<namespace>:<event>\"", name))
	}
	if ns, _, _ := events.SplitName(name); events.IsHostNamespace(ns) && !slices.Contains(rt.host.CoreEvents, name) {
		ArgError(l, "on", 1, fmt.Sprintf("%q is not a core event (%s)", name, NameList(rt.host.CoreEvents)))
	}
	if ev := rt.manifest.Events; ev != nil && len(ev.Handles) > 0 && !slices.Contains(ev.Handles, name) {
		ArgError(l, "on", 1, fmt.Sprintf("event %q is not declared in the manifest's events.handles (%s)", name, NameList(ev.Handles)))
	}
	CheckFunction(l, "on", 2)
	total := 0
	for _, n := range rt.sdk.handlers {
		total += n
	}
	if total >= maxHandlers {
		lua.Errorf(l, "on: too many handlers (%d)", maxHandlers)
	}
	l.Field(lua.RegistryIndex, handlersKey)
	l.Field(-1, name)
	if l.IsNil(-1) {
		l.Pop(1)
		l.NewTable()
		l.PushValue(-1)
		l.SetField(-3, name)
	}
	l.PushValue(2)
	l.RawSetInt(-2, l.RawLength(-2)+1)
	l.Pop(2)
	rt.sdk.handlers[name]++
	rt.publishHandled()
	return 0
}

// CallHandlers runs the instance's handlers of ev, each under its own call
// budget, and returns their failures. The caller holds the instance lock.
func (rt *Runtime) CallHandlers(ctx context.Context, ev Event) []error {
	if rt.closed || rt.sdk.handlers[ev.Name] == 0 {
		return nil
	}
	payload, err := decodeJSON(ev.Payload)
	if err != nil {
		return []error{fmt.Errorf("event %s: payload: %w", ev.Name, err)}
	}
	meta := map[string]any{"event": ev.Name, "timestamp": rt.host.EventTime(ev.Time)}
	for k, v := range map[string]string{"plugin": ev.Plugin, "session": ev.Session, "adapter": ev.Adapter} {
		if v != "" {
			meta[k] = v
		}
	}
	n := rt.sdk.handlers[ev.Name] // handlers added meanwhile wait for the next event
	saved := rt.sdk.depth
	rt.sdk.depth = ev.Depth + 1
	defer func() { rt.sdk.depth = saved }()
	var errs []error
	for i := 1; i <= n; i++ {
		if err := rt.ensure(ctx); err != nil {
			return append(errs, err)
		}
		err := rt.protected(ctx, "on("+ev.Name+")", func(l *lua.State) error {
			l.Field(lua.RegistryIndex, handlersKey)
			l.Field(-1, ev.Name)
			if !l.IsTable(-1) {
				return nil // the state was replaced and has fewer handlers
			}
			l.RawGetInt(-1, i)
			if !l.IsFunction(-1) {
				return nil
			}
			if err := pushDecoded(l, payload, 0); err != nil {
				return err
			}
			if err := pushDecoded(l, meta, 0); err != nil {
				return err
			}
			l.Call(2, 0)
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Cleanups.

// luaOnCleanup is ptywright.on_cleanup(fn).
func (rt *Runtime) luaOnCleanup(l *lua.State) int {
	CheckFunction(l, "on_cleanup", 1)
	if rt.sdk.cleanups >= maxCleanups {
		// Slots of cleanups already run are reused first.
		rt.compactCleanups(l)
		if rt.sdk.cleanups >= maxCleanups {
			lua.Errorf(l, "on_cleanup: too many cleanups pending (%d)", maxCleanups)
		}
	}
	l.Field(lua.RegistryIndex, cleanupsKey)
	l.PushValue(1)
	rt.sdk.cleanups++
	l.RawSetInt(-2, rt.sdk.cleanups)
	l.Pop(1)
	return 0
}

// compactCleanups closes the gaps cleanups that ran left, keeping order.
func (rt *Runtime) compactCleanups(l *lua.State) {
	l.Field(lua.RegistryIndex, cleanupsKey)
	j := 0
	for i := 1; i <= rt.sdk.cleanups; i++ {
		l.RawGetInt(-1, i)
		if l.IsNil(-1) {
			l.Pop(1)
			continue
		}
		j++
		l.RawSetInt(-2, j)
	}
	for i := j + 1; i <= rt.sdk.cleanups; i++ {
		l.PushNil()
		l.RawSetInt(-2, i)
	}
	l.Pop(1)
	rt.sdk.cleanups = j
}

// RunCleanups runs the pending cleanups newest first, each once and under
// its own call budget, and returns their failures. A failure that leaves
// the state untrusted drops the cleanups not yet run (they live in it).
func (rt *Runtime) RunCleanups(ctx context.Context) []error {
	var errs []error
	for i := rt.sdk.cleanups; i >= 1; i-- {
		if rt.l == nil {
			errs = append(errs, fmt.Errorf("plugin %s: %d cleanup(s) lost with a failed state", rt.manifest.Name, i))
			break
		}
		ran := false
		err := rt.protected(ctx, "cleanup", func(l *lua.State) error {
			l.Field(lua.RegistryIndex, cleanupsKey)
			l.RawGetInt(-1, i)
			if l.IsNil(-1) {
				return nil
			}
			// Cleared before the call: it runs once even if it fails.
			l.PushNil()
			l.RawSetInt(-3, i)
			ran = true
			l.Call(0, 0)
			return nil
		})
		if ran && err != nil {
			errs = append(errs, err)
		}
	}
	rt.sdk.cleanups = 0
	if rt.l != nil {
		rt.l.NewTable()
		rt.l.SetField(lua.RegistryIndex, cleanupsKey)
	}
	return errs
}

// salvageCleanups runs the cleanups of a state that failed (a stack
// overflow, a memory trip, an error in error handling, an interpreter
// failure) in that state, before it is dropped: they are closures over it,
// so they cannot run anywhere else, and the runtime promises registered
// cleanups run. A stack overflow has unwound by now and the state's stack
// is emptied first; each cleanup runs in its own protected call under a
// fresh call budget, so one that fails, or fails the state again, is
// reported and the rest are lost with it (logged, as at any cleanup
// failure). They run now rather than at shutdown because the state is not
// kept: the fresh state loaded for the next call registers its own.
func (rt *Runtime) salvageCleanups() {
	rt.salvaging = true
	rt.broken = false
	defer func() { rt.salvaging, rt.broken = false, true }()
	rt.budget.stop(rt.l)
	rt.l.SetTop(0)
	rt.Logger().Warn("plugin state failed; running its cleanups before replacing it", "cleanups", rt.pendingCleanups())
	for _, err := range rt.RunCleanups(context.Background()) {
		rt.Logger().Warn("plugin cleanup failed", "err", rt.redact(err.Error()))
	}
}

// CallClose calls the plugin's optional close() export.
func (rt *Runtime) CallClose(ctx context.Context) error {
	if rt.l == nil || !rt.exports()["close"] {
		return nil
	}
	return rt.callExport(ctx, "close", func(*lua.State) (int, error) { return 0, nil }, func(*lua.State) error { return nil })
}

// Logging.

// luaLog is ptywright.log.<level>(msg, fields?): one slog record with
// plugin=<name> and the fields' keys in sorted order. The message and
// every string of the fields, keys and nested ones included, are redacted
// with the default policy, like everything else that leaves the process.
func (rt *Runtime) luaLog(fname string, level slog.Level) lua.Function {
	fname = "log." + fname
	return func(l *lua.State) int {
		msg, ok := lua.ToStringMeta(l, 1)
		l.Pop(1)
		if !ok || l.IsNoneOrNil(1) {
			ArgError(l, fname, 1, "message expected, got "+TypeName(l, 1))
		}
		rt.budget.chargeBytes(l, len(msg))
		var attrs []any
		if !l.IsNoneOrNil(2) {
			conv := rt.newLuaToGo(l)
			v, err := conv.value(2, "fields")
			rt.budget.charge(l, int64(conv.nodes*nodeCost))
			if err != nil {
				ArgError(l, fname, 2, err.Error())
			}
			fields, ok := v.(map[string]any)
			if !ok {
				ArgError(l, fname, 2, "want a table with string keys")
			}
			// Every string, nested ones and table keys included: a
			// plugin logs the rows it saw in a list or as a set.
			fields, _ = secrets.Tree{Text: rt.redact, Key: rt.redact}.Value(fields).(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				attrs = append(attrs, k, fields[k])
			}
		}
		// The message carries the plugin's name as a prefix, as the
		// runtime guide's logger standard asks ("[pw-user-action] overlay
		// restored"), so a line is attributable in any handler's output,
		// text or JSON; the plugin attribute stays for filtering.
		rt.Logger().Log(context.Background(), level, "["+rt.manifest.Name+"] "+rt.redact(msg), attrs...)
		return 0
	}
}

// Results.

// installResultHelpers sets the globals Ok(value) and Err(message): tables
// {ok = value} and {err = message} that a hook returns and the host reads
// as {"ok": value} and {"err": message}. They share a protected metatable,
// which is how the host tells them from a raw table return.
func (rt *Runtime) installResultHelpers(l *lua.State) {
	l.NewTable()
	l.PushString("ptywright.result")
	l.SetField(-2, "__metatable")
	l.SetField(lua.RegistryIndex, resultMetaKey)
	result := func(key string, check func(l *lua.State)) lua.Function {
		return func(l *lua.State) int {
			check(l)
			l.CreateTable(0, 1)
			l.PushValue(1)
			l.SetField(-2, key)
			l.Field(lua.RegistryIndex, resultMetaKey)
			l.SetMetaTable(-2)
			return 1
		}
	}
	l.PushGoFunction(rt.safe("Ok", result("ok", func(*lua.State) {})))
	l.SetGlobal("Ok")
	l.PushGoFunction(rt.safe("Err", result("err", func(l *lua.State) {
		if l.IsNoneOrNil(1) {
			ArgError(l, "Err", 1, "message expected, got "+TypeName(l, 1))
		}
	})))
	l.SetGlobal("Err")
}

// isResult reports whether the value at idx was made by Ok or Err.
func (rt *Runtime) isResult(l *lua.State, idx int) bool {
	if !l.IsTable(idx) || !l.MetaTable(idx) {
		return false
	}
	l.Field(lua.RegistryIndex, resultMetaKey)
	same := l.RawEqual(-1, -2)
	l.Pop(2)
	return same
}
