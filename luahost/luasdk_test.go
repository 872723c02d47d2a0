package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

// newSDKExt loads src as plugin name on bus, logging into logger.
func newSDKExt(t testing.TB, m manifest.Manifest, src string, opts luahost.Options) *luahost.Extension {
	t.Helper()
	if opts.Limits == (luahost.Limits{}) {
		opts.Limits = tuitest.TestLimits
	}
	ext, err := luahost.New(m, []byte(src), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, ext.Close()) })
	return ext
}

func TestLuaEmitNamespacing(t *testing.T) {
	bus := events.New(nil)
	ch := tuitest.Collect(t, bus)
	ext := newSDKExt(t, tuitest.SDKManifest("tool"), `local M = {}
function M.fire(name, payload) ptywright.emit(name, payload) return true end
return M`, luahost.Options{Events: bus, Scope: events.Scope{Session: "s4", Adapter: "e2"}})
	ctx := context.Background()

	tests := []struct {
		name, payload, want, wantPayload string
	}{
		{"ready", `{"n":1}`, "tool:ready", `{"n":1}`},
		{"tool:ready", `[1,"two"]`, "tool:ready", `[1,"two"]`},
		{"done", "null", "tool:done", "null"},
	}
	for _, tt := range tests {
		_, err := ext.CallHook(ctx, "fire", json.RawMessage(`["`+tt.name+`",`+tt.payload+`]`), luahost.HookOptions{})
		require.NoError(t, err)
		ev := <-ch
		require.Equal(t, tt.want, ev.Name)
		require.Equal(t, "tool", ev.Plugin)
		require.Equal(t, "s4", ev.Session)
		require.Equal(t, "e2", ev.Adapter)
		require.JSONEq(t, tt.wantPayload, string(ev.Payload))
	}

	refused := []struct{ name, want string }{
		{"other:ready", `event "other:ready" is outside the plugin's namespace "tool:"`},
		{"session:created", `in the core namespace "session"`},
		{"adapter:state_changed", `in the core namespace "adapter"`},
		{"Bad Name", "must be"},
		{"tool:", "must be"},
	}
	for _, tt := range refused {
		_, err := ext.CallHook(ctx, "fire", json.RawMessage(`["`+tt.name+`"]`), luahost.HookOptions{})
		require.ErrorIs(t, err, luahost.ErrRuntime, tt.name)
		require.ErrorContains(t, err, tt.want)
	}
	_, err := ext.CallHook(ctx, "fire", json.RawMessage(`["x", {"f": "not json"}]`), luahost.HookOptions{})
	require.NoError(t, err)
	<-ch
	require.Empty(t, ch, "refused emits reach nobody")
}

func TestLuaEmitDeclaredEvents(t *testing.T) {
	bus := events.New(nil)
	m := tuitest.SDKManifest("tool")
	m.Events = &manifest.Events{Emits: []string{"tool:ok"}, Handles: []string{"session:exited"}}
	ext := newSDKExt(t, m, `local M = {}
function M.fire(name) ptywright.emit(name) end
function M.listen(name) ptywright.on(name, function() end) end
return M`, luahost.Options{Events: bus})
	ctx := context.Background()
	_, err := ext.CallHook(ctx, "fire", json.RawMessage(`["ok"]`), luahost.HookOptions{})
	require.NoError(t, err)
	_, err = ext.CallHook(ctx, "fire", json.RawMessage(`["other"]`), luahost.HookOptions{})
	require.ErrorContains(t, err, `event "tool:other" is not declared in the manifest's events.emits (tool:ok)`)
	_, err = ext.CallHook(ctx, "listen", json.RawMessage(`["session:exited"]`), luahost.HookOptions{})
	require.NoError(t, err)
	_, err = ext.CallHook(ctx, "listen", json.RawMessage(`["session:created"]`), luahost.HookOptions{})
	require.ErrorContains(t, err, `event "session:created" is not declared in the manifest's events.handles (session:exited)`)
}

func TestLuaEmitWithoutBusIsANoOp(t *testing.T) {
	ext := newSDKExt(t, tuitest.SDKManifest("tool"), `local M = {}
function M.fire() ptywright.emit("x", {a = 1}) return "fired" end
return M`, luahost.Options{})
	res, err := ext.CallHook(context.Background(), "fire", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, `"fired"`, string(res.Ok))
}

func TestLuaHandlers(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := events.New(logger)
	ch, all := tuitest.Collect(t, bus), tuitest.Collect(t, bus)
	// The listener re-emits what it hears, so the test observes the handler
	// ran (and with what) through the bus.
	newSDKExt(t, tuitest.SDKManifest("listener"), `local M = {}
ptywright.on("session:exited", function(payload, meta)
  ptywright.emit("heard", {event = meta.event, session = meta.session, sequence = payload.sequence, ts = meta.timestamp == payload.timestamp})
end)
ptywright.on("session:exited", function() error("second handler fails") end)
ptywright.on("session:exited", function() ptywright.emit("third") end)
ptywright.on("tool:ping", function(payload, meta) ptywright.emit("pong", {from = meta.plugin, n = payload.n}) end)
ptywright.on("listener:heard", function() ptywright.emit("self_heard") end)
return M`, luahost.Options{Events: bus, Logger: logger})
	tool := newSDKExt(t, tuitest.SDKManifest("tool"), `local M = {}
function M.ping(n) ptywright.emit("ping", {n = n}) end
return M`, luahost.Options{Events: bus})

	now := time.Now() // One time for the payload's timestamp and the event's, as the core emits them.
	exited, err := json.Marshal(ptywright.CoreEvent{Event: events.SessionExited, Session: "s1", Sequence: 9, Timestamp: events.Timestamp(now)})
	require.NoError(t, err)
	require.NoError(t, bus.Emit(events.Event{Name: events.SessionExited, Session: "s1", Payload: exited, Time: now}))
	heard := tuitest.NextEvent(t, ch, "listener:heard")
	require.JSONEq(t, `{"event":"session:exited","session":"s1","sequence":9,"ts":true}`, string(heard.Payload))
	tuitest.NextEvent(t, ch, "listener:third") // the failing handler did not stop the next one

	_, err = tool.CallHook(context.Background(), "ping", json.RawMessage(`[7]`), luahost.HookOptions{})
	require.NoError(t, err)
	pong := tuitest.NextEvent(t, ch, "listener:pong")
	require.JSONEq(t, `{"from":"tool","n":7}`, string(pong.Payload))

	fails := logs.Matching(t, "event handler failed")
	require.Len(t, fails, 1)
	require.Equal(t, "listener", fails[0]["plugin"])
	require.Equal(t, "session:exited", fails[0]["event"])
	require.Contains(t, fails[0]["err"], "second handler fails")
	for _, ev := range drain(all) {
		require.NotEqual(t, "listener:self_heard", ev.Name, "an instance does not hear its own events")
	}
}

// drain returns what is queued on ch now.
func drain(ch <-chan events.Event) []events.Event {
	var out []events.Event
	for {
		select {
		case ev := <-ch:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func TestLuaHandlerLoopsEnd(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := events.New(logger)
	ch := tuitest.Collect(t, bus)
	// Two plugins answering each other forever: the chain is cut.
	newSDKExt(t, tuitest.SDKManifest("ping"), `ptywright.on("pong:ball", function(p) ptywright.emit("ball", {n = p.n + 1}) end)
return {}`, luahost.Options{Events: bus, Logger: logger})
	newSDKExt(t, tuitest.SDKManifest("pong"), `ptywright.on("ping:ball", function(p) ptywright.emit("ball", {n = p.n + 1}) end)
return {}`, luahost.Options{Events: bus, Logger: logger})
	require.NoError(t, bus.Emit(events.Event{Name: "ping:ball", Payload: json.RawMessage(`{"n":0}`)}))

	require.Eventually(t, func() bool {
		return len(logs.Matching(t, "event dropped: emitted from a chain of handlers too long (a loop?)")) == 1
	}, 10*time.Second, 5*time.Millisecond)
	var last int
	for _, ev := range drain(ch) {
		var p struct{ N int }
		require.NoError(t, json.Unmarshal(ev.Payload, &p))
		last = max(last, p.N)
	}
	require.Equal(t, 8, last, "eight generations of handler-emitted events, then the chain stops")
}

func TestLuaLog(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	ext := newSDKExt(t, tuitest.SDKManifest("tool"), `local M = {}
function M.go()
  ptywright.log.debug("starting", {step = 1})
  ptywright.log.info("token is Bearer abcdefghijklmnopqrstuvwxyz0123", {b = "x", a = {nested = true}})
  ptywright.log.warn(42)
  ptywright.log.error("bad")
end
function M.bad(what) if what == "msg" then ptywright.log.info() else ptywright.log.info("m", {1, 2}) end end
return M`, luahost.Options{Logger: logger, Scope: events.Scope{Adapter: "e1", Session: "s1"}})
	_, err := ext.CallHook(context.Background(), "go", nil, luahost.HookOptions{})
	require.NoError(t, err)
	recs := logs.Records(t)
	require.Len(t, recs, 4)
	for i, level := range []string{"DEBUG", "INFO", "WARN", "ERROR"} {
		require.Equal(t, level, recs[i]["level"])
		require.Equal(t, "tool", recs[i]["plugin"])
		require.Equal(t, "e1", recs[i]["adapter"])
		require.Equal(t, "s1", recs[i]["session"])
	}
	require.Equal(t, "[tool] starting", recs[0]["msg"], "the plugin's name prefixes its lines")
	require.Equal(t, float64(1), recs[0]["step"])
	require.NotContains(t, recs[1]["msg"], "abcdefghijklmnopqrstuvwxyz0123", "messages are redacted")
	require.Equal(t, map[string]any{"nested": true}, recs[1]["a"])
	require.Equal(t, "[tool] 42", recs[2]["msg"])

	_, err = ext.CallHook(context.Background(), "bad", json.RawMessage(`["msg"]`), luahost.HookOptions{})
	require.ErrorContains(t, err, "bad argument #1 to 'log.info' (message expected, got no value)")
	_, err = ext.CallHook(context.Background(), "bad", json.RawMessage(`["fields"]`), luahost.HookOptions{})
	require.ErrorContains(t, err, "bad argument #2 to 'log.info' (want a table with string keys)")
}

// cleanupPlugin registers cleanups that emit "<name>:cleaned" with their
// number, and a close() that emits "<name>:closed".
const cleanupPlugin = `local M = {}
local n = 0
local function register()
  n = n + 1
  local id = n
  ptywright.on_cleanup(function() ptywright.emit("cleaned", {id = id}) end)
end
register()
register()
function M.register() register() end
function M.register_failing()
  ptywright.on_cleanup(function() error("cleanup failed on purpose") end)
end
function M.register_runaway()
  ptywright.on_cleanup(function() while true do end end)
end
function M.close() ptywright.emit("closed") end
return M`

// cleanupOrder returns the ids of the cleaned events and whether closed
// came, in order, from what ch holds.
func cleanupOrder(t testing.TB, ch <-chan events.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range drain(ch) {
		switch {
		case ev.Name == "tool:closed":
			out = append(out, "close")
		default:
			var p struct{ ID int }
			require.NoError(t, json.Unmarshal(ev.Payload, &p))
			out = append(out, fmt.Sprint(p.ID))
		}
	}
	return out
}

func TestLuaCleanups(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := events.New(logger)
	ch := tuitest.Collect(t, bus)
	ext, err := luahost.New(tuitest.SDKManifest("tool"), []byte(cleanupPlugin), luahost.Options{Limits: tuitest.TestLimits, Events: bus, Logger: logger})
	require.NoError(t, err)
	ctx := context.Background()

	require.NoError(t, ext.RunCleanups(ctx))
	require.Equal(t, []string{"2", "1"}, cleanupOrder(t, ch), "newest first")
	require.NoError(t, ext.RunCleanups(ctx))
	require.Empty(t, cleanupOrder(t, ch), "each runs once")

	_, err = ext.CallHook(ctx, "register", nil, luahost.HookOptions{})
	require.NoError(t, err)
	_, err = ext.CallHook(ctx, "register_failing", nil, luahost.HookOptions{})
	require.NoError(t, err)
	_, err = ext.CallHook(ctx, "register_runaway", nil, luahost.HookOptions{})
	require.NoError(t, err)
	_, err = ext.CallHook(ctx, "register", nil, luahost.HookOptions{})
	require.NoError(t, err)

	require.NoError(t, ext.Close())
	require.Equal(t, []string{"4", "3", "close"}, cleanupOrder(t, ch), "a failing and a runaway cleanup do not stop the others; close() comes last")
	fails := logs.Matching(t, "plugin shutdown failed")
	require.Len(t, fails, 2)
	require.Contains(t, fails[0]["err"], "instruction budget exceeded", "each cleanup runs under the call budget")
	require.Contains(t, fails[1]["err"], "cleanup failed on purpose")
	require.Equal(t, "tool", fails[1]["plugin"])

	require.NoError(t, ext.Close())
	require.Empty(t, cleanupOrder(t, ch), "Close runs everything once")
	_, err = ext.CallHook(ctx, "register", nil, luahost.HookOptions{})
	require.ErrorIs(t, err, luahost.ErrRuntime)
}

func TestLuaCleanupArguments(t *testing.T) {
	ext := newSDKExt(t, tuitest.SDKManifest("tool"), `local M = {}
function M.bad_cleanup() ptywright.on_cleanup("nope") end
function M.bad_on() ptywright.on("x:y", 1) end
function M.bad_core() ptywright.on("session:made_up", function() end) end
function M.many() for i = 1, 300 do ptywright.on_cleanup(function() end) end end
return M`, luahost.Options{})
	for hook, want := range map[string]string{
		"bad_cleanup": "bad argument #1 to 'on_cleanup' (function expected, got string)",
		"bad_on":      "bad argument #2 to 'on' (function expected, got number)",
		"bad_core":    `"session:made_up" is not a core event`,
		"many":        "on_cleanup: too many cleanups pending (256)",
	} {
		_, err := ext.CallHook(context.Background(), hook, nil, luahost.HookOptions{})
		require.ErrorContains(t, err, want, hook)
	}
}

func TestExtensionHandleEvents(t *testing.T) {
	tuitest.NoLeak(t)
	logger, _ := tuitest.JSONLogger()
	plugins := tuitest.EchoPlugins(t, plugins.Options{Logger: logger})
	_, err := plugins.Load(tuitest.WritePlugin(t, "watcher", "", `local M = {}
ptywright.on_cleanup(function() ptywright.emit("cleaned") end)
function M.classify(ctx)
  if ctx.screen:find("bye", 1, true) then
    ptywright.emit("saw_bye", {sequence = ctx.sequence})
    return {state = "leaving"}
  end
  return {state = "idle"}
end
function M.close() ptywright.emit("closed") end
return M`))
	require.NoError(t, err)
	ch, all := tuitest.Collect(t, plugins.Events()), tuitest.Collect(t, plugins.Events())

	ext, err := plugins.NewExtension("watcher")
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "read line; echo bye; read line"}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Events: plugins.Events(), Scope: events.Scope{Session: "s1", Adapter: "e1"}})
	defer func() { require.NoError(t, h.Close()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "idle", st.State)
	ev := tuitest.NextEvent(t, ch, events.AdapterStateChanged)
	require.Equal(t, "e1", ev.Adapter)
	var ce ptywright.CoreEvent
	require.NoError(t, json.Unmarshal(ev.Payload, &ce))
	require.Equal(t, ptywright.CoreEvent{Event: "adapter:state_changed", Session: "s1", Adapter: "e1", Sequence: st.Sequence, State: "idle", Timestamp: ce.Timestamp}, ce)

	_, err = h.State(ctx)
	require.NoError(t, err)
	require.Empty(t, drain(ch), "the same state again is no change")

	require.NoError(t, s.Send(ctx, ptywright.Text("go\r")))
	_, err = s.Wait(ctx, ptywright.ContainsText("bye"))
	require.NoError(t, err)
	st, err = h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "leaving", st.State)
	saw := tuitest.NextEvent(t, ch, "watcher:saw_bye")
	require.Equal(t, "s1", saw.Session, "the handle binds its scope to the plugin's events")
	require.NoError(t, json.Unmarshal(tuitest.NextEvent(t, ch, events.AdapterStateChanged).Payload, &ce))
	require.Equal(t, "leaving", ce.State)
	require.Equal(t, "idle", ce.PreviousState)

	// The program exits: the cleanups run then, once; close() waits for
	// Close.
	require.NoError(t, s.Send(ctx, ptywright.Text("end\r")))
	tuitest.NextEvent(t, ch, "watcher:cleaned")
	require.NoError(t, h.Close())
	tuitest.NextEvent(t, ch, "watcher:closed")
	var names []string
	for _, ev := range drain(all) {
		if ev.Plugin == "watcher" {
			names = append(names, ev.Name)
		}
	}
	require.Equal(t, []string{"watcher:saw_bye", "watcher:cleaned", "watcher:closed"}, names, "cleanups ran exactly once, close() last")
}

func TestExtensionHandleCloseRunsCleanups(t *testing.T) {
	tuitest.NoLeak(t)
	plugins := tuitest.EchoPlugins(t, plugins.Options{})
	_, err := plugins.Load(tuitest.WritePlugin(t, "watcher", "", `ptywright.on_cleanup(function() ptywright.emit("cleaned") end)
return {classify = function() return {state = "idle"} end}`))
	require.NoError(t, err)
	ch := tuitest.Collect(t, plugins.Events())
	ext, err := plugins.NewExtension("watcher")
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "sleep 30"}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
	require.NoError(t, h.Close())
	tuitest.NextEvent(t, ch, "watcher:cleaned")
	require.Empty(t, drain(ch))
}

// TestLuaCleanupsSurviveStackOverflow: the cleanups a state registered run
// (newest first, once) when a stack overflow fails the state, before a
// fresh state replaces it; the fresh state's own run at Close.
func TestLuaCleanupsSurviveStackOverflow(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := events.New(logger)
	ch := tuitest.Collect(t, bus)
	src := strings.Replace(cleanupPlugin, "function M.close()", `function M.overflow() local function f(n) return f(n + 1) + 1 end return f(1) end
function M.ping() return "pong" end
function M.close()`, 1)
	ext, err := luahost.New(tuitest.SDKManifest("tool"), []byte(src), luahost.Options{Limits: tuitest.TestLimits, Events: bus, Logger: logger})
	require.NoError(t, err)
	ctx := context.Background()
	_, err = ext.CallHook(ctx, "register", nil, luahost.HookOptions{})
	require.NoError(t, err)

	// Overflowing takes seconds under -race: a generous timeout.
	_, err = ext.CallHook(ctx, "overflow", nil, luahost.HookOptions{Timeout: time.Minute})
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "stack overflow")
	require.Equal(t, []string{"3", "2", "1"}, cleanupOrder(t, ch), "the failed state's cleanups ran, newest first")
	require.Empty(t, logs.Matching(t, "plugin state replaced after a failure; its cleanups are lost"))

	got, err := ext.CallHook(ctx, "ping", nil, luahost.HookOptions{})
	require.NoError(t, err, "a fresh state answers")
	require.JSONEq(t, `"pong"`, string(got.Ok))
	require.NoError(t, ext.Close())
	require.Equal(t, []string{"2", "1", "close"}, cleanupOrder(t, ch), "the fresh state registered its own, run once at Close")
}
