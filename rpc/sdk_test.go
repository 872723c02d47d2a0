//go:build unix

package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
	"ptywright/plugins"
)

const sdkManifest = "testdata/plugins/sdk/manifest.toml"

// logBuffer collects a logger's JSON records, for tests that observe what
// plugins log (plugins have no io: the log is their side effect).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// count returns how many records have msg and every attribute in attrs.
func (l *logBuffer) count(t testing.TB, msg string, attrs map[string]any) int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for line := range bytes.Lines(l.b.Bytes()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(line, &rec), "%s", line)
		if rec["msg"] != msg {
			continue
		}
		match := true
		for k, v := range attrs {
			if rec[k] != v {
				match = false
			}
		}
		if match {
			n++
		}
	}
	return n
}

// sdkEnv is a server over a registry holding the sdk plugin, both logging
// JSON into logs, served on a Unix socket at path.
type sdkEnv struct {
	srv     *Server
	path    string
	logs    *logBuffer
	plugins *plugins.Registry
}

func sdkServer(t *testing.T, opts Options) sdkEnv {
	t.Helper()
	logs := &logBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p, err := plugins.New(plugins.Options{Logger: logger})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, err = p.Load(sdkManifest)
	require.NoError(t, err)
	opts.Plugins, opts.Logger = p, logger
	srv := newServer(t, opts)
	return sdkEnv{srv: srv, path: serveUnix(t, srv), logs: logs, plugins: p}
}

func (e sdkEnv) dial(t *testing.T) *client { return dialUnix(t, e.path, NDJSON) }

// nextEvent returns the next adapter.event for which match is true,
// skipping every other notification.
func (c *client) nextEvent(match func(eventParams) bool) eventParams {
	c.t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case m := <-c.notes:
			if m.Method != notifyEvent {
				continue
			}
			var ev eventParams
			require.NoError(c.t, json.Unmarshal(m.Params, &ev))
			if match(ev) {
				return ev
			}
		case <-deadline:
			c.t.Fatalf("no matching adapter.event within %s", patience)
			return eventParams{}
		}
	}
}

func named(name, adapter string) func(eventParams) bool {
	return func(ev eventParams) bool { return ev.Event == name && (adapter == "" || ev.Adapter == adapter) }
}

func TestEventsOverRPC(t *testing.T) {
	env := sdkServer(t, Options{})
	// A client without events: true gets session notifications only.
	c, plain := env.dial(t), env.dial(t)
	var echo notificationsResult
	c.do("server.set_notifications", map[string]any{"enabled": true, "events": true, "adapters": []string{"e1"}}, &echo)
	require.Equal(t, notificationsResult{Enabled: true, Adapters: []string{"e1"}, Sessions: []string{}, Events: true}, echo)
	var plainEcho map[string]any
	plain.do("server.set_notifications", map[string]any{"enabled": true}, &plainEcho)
	require.NotContains(t, plainEcho, "events", "the reference's shape when events are off")

	started := c.startAdapter(map[string]any{"plugin": "sdk"})
	require.Equal(t, "e1", started.Adapter)

	// Core events, in one payload contract.
	created := c.nextEvent(named(events.SessionCreated, "e1"))
	require.Equal(t, eventParams{Event: "session:created", Session: "s1", Adapter: "e1", Payload: created.Payload, Timestamp: created.Timestamp}, created)
	var ce ptywright.CoreEvent
	require.NoError(t, json.Unmarshal(created.Payload, &ce))
	require.Equal(t, ptywright.CoreEvent{Event: "session:created", Session: "s1", Adapter: "e1", Sequence: ce.Sequence, Timestamp: ce.Timestamp}, ce)
	_, err := time.Parse(time.RFC3339Nano, ce.Timestamp)
	require.NoError(t, err)
	changed := c.nextEvent(named(events.AdapterStateChanged, "e1"))
	require.NoError(t, json.Unmarshal(changed.Payload, &ce))
	require.Equal(t, "idle", ce.State)
	require.Equal(t, "s1", ce.Session)

	// The plugin emitted while classifying: namespaced by the host.
	classified := c.nextEvent(named("sdk:classified", "e1"))
	require.Equal(t, "sdk", classified.Plugin)
	require.Equal(t, "s1", classified.Session)
	require.Contains(t, string(classified.Payload), `"state":"idle"`)

	// A resize is a core event too. The adapter's session is resized
	// through the adapter: session.resize refuses it.
	c.do("adapter.send", map[string]any{"adapter": "e1", "intent": "resize", "params": map[string]any{"rows": 30, "cols": 100}}, nil)
	resized := c.nextEvent(named(events.SessionResized, "e1"))
	require.NoError(t, json.Unmarshal(resized.Payload, &ce))
	require.Equal(t, &ptywright.Size{Rows: 30, Cols: 100}, ce.Size)

	// The state changes when the screen shows ready.
	var st stateResult
	c.do("adapter.send", map[string]any{"adapter": "e1", "intent": "send_text", "params": map[string]any{"text": "ready"}}, &st)
	c.do("adapter.wait", map[string]any{"adapter": "e1", "params": map[string]any{"text": "ready"}, "timeout_ms": patience.Milliseconds()}, &st)
	require.Equal(t, "ready", st.State.State)
	c.nextEvent(func(ev eventParams) bool {
		return ev.Event == events.AdapterStateChanged && bytes.Contains(ev.Payload, []byte(`"state":"ready"`))
	})

	// The plain client hears its own session exit after everything above
	// was published; it got no adapter.event.
	own := plain.sh("exit 0")
	for {
		m := plain.note()
		require.NotEqual(t, notifyEvent, m.Method, "a client without events: true got %s", m.Params)
		var p noteParams
		require.NoError(t, json.Unmarshal(m.Params, &p))
		if m.Method == notifyExited && p.Session == own {
			break
		}
	}
}

// TestFailingHandlerLeavesSessionWorking: the sdk plugin's handlers of
// session:created and adapter:state_changed always raise; the adapter
// works regardless, and each failure is logged with the plugin's name.
func TestFailingHandlerLeavesSessionWorking(t *testing.T) {
	env := sdkServer(t, Options{})
	c := env.dial(t)
	c.startAdapter(map[string]any{"plugin": "sdk"})
	var res adapterWaitResult
	c.do("adapter.turn", map[string]any{
		"adapter": "e1",
		"send":    map[string]any{"intent": "send_text", "params": map[string]any{"text": "ready"}},
		"wait":    map[string]any{"params": map[string]any{"text": "ready"}, "timeout_ms": patience.Milliseconds()},
	}, &res)
	require.Equal(t, "ready", res.State.State)
	require.Eventually(t, func() bool {
		return env.logs.count(t, "event handler failed", map[string]any{"plugin": "sdk", "adapter": "e1", "event": "adapter:state_changed"}) > 0 &&
			env.logs.count(t, "event handler failed", map[string]any{"plugin": "sdk", "adapter": "e1", "event": "session:created"}) > 0
	}, patience, 5*time.Millisecond)
	var snap ptywright.ScreenSnapshot
	c.do("adapter.snapshot", map[string]any{"adapter": "e1"}, &snap)
	require.Contains(t, snap.PlainText, "ready")
}

// TestCleanupsRunOnce covers the three shutdown paths: adapter.close, the
// program exiting, and the server shutting down. The sdk plugin's cleanup
// logs "sdk cleanup ran" and emits sdk:cleaned; its close() logs "sdk
// close ran" and emits sdk:closed. Plugins have no io, so the log (the
// server's own slog handler) is the side effect counted; the events show
// the client sees it happen.
func TestCleanupsRunOnce(t *testing.T) {
	env := sdkServer(t, Options{})
	c := env.dial(t)
	c.do("server.set_notifications", map[string]any{"enabled": true, "events": true}, nil)

	// adapter.close: the cleanup, then close(), each once.
	c.startAdapter(map[string]any{"plugin": "sdk"})
	c.do("adapter.close", map[string]any{"adapter": "e1"}, nil)
	cleaned := c.nextEvent(named("sdk:cleaned", "e1"))
	require.Equal(t, "s1", cleaned.Session)
	c.nextEvent(named("sdk:closed", "e1"))

	// The program exits: the cleanup runs then; close() waits for the
	// adapter to close.
	c.startAdapter(map[string]any{"plugin": "sdk", "program": "/bin/sh", "args": []string{"-c", "read line"}})
	c.do("adapter.send", map[string]any{"adapter": "e2", "intent": "send_text", "params": map[string]any{"text": "bye"}}, nil)
	// Both follow the exit, in no set order.
	seen := map[string]bool{}
	for len(seen) < 2 {
		ev := c.nextEvent(func(ev eventParams) bool {
			return ev.Adapter == "e2" && (ev.Event == events.SessionExited || ev.Event == "sdk:cleaned")
		})
		seen[ev.Event] = true
	}
	require.Equal(t, 1, env.logs.count(t, "[sdk] sdk cleanup ran", map[string]any{"adapter": "e2"}))
	require.Zero(t, env.logs.count(t, "[sdk] sdk close ran", map[string]any{"adapter": "e2"}))
	var live adapterLiveResult
	c.do("adapter.live", nil, &live)
	require.Len(t, live.Adapters, 1)
	require.True(t, live.Adapters[0].Finished, "the adapter outlives its program")
	c.do("adapter.close", map[string]any{"adapter": "e2"}, nil)
	c.nextEvent(named("sdk:closed", "e2"))

	// Server shutdown closes the adapters still live.
	c.startAdapter(map[string]any{"plugin": "sdk"})
	require.NoError(t, env.srv.Close())

	for _, id := range []string{"e1", "e2", "e3"} {
		require.Equal(t, 1, env.logs.count(t, "[sdk] sdk cleanup ran", map[string]any{"plugin": "sdk", "adapter": id}), id)
		require.Equal(t, 1, env.logs.count(t, "[sdk] sdk close ran", map[string]any{"plugin": "sdk", "adapter": id}), id)
	}
	require.Zero(t, env.logs.count(t, "plugin shutdown failed", nil))
}

func TestPluginCall(t *testing.T) {
	env := sdkServer(t, Options{MaxHookTimeout: 200 * time.Millisecond})
	c := env.dial(t)
	tests := []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"plugin": "sdk", "hook": "add", "args": []any{3, 4}}, `{"ok":7}`},
		{map[string]any{"plugin": "sdk", "hook": "fail", "args": []any{"not today"}}, `{"err":"not today"}`},
		{map[string]any{"plugin": "sdk", "hook": "raw", "args": []any{map[string]any{"a": []any{1}}}}, `{"ok":{"got":{"a":[1]}}}`},
		// Doubles written as doubles come back unaltered, whatever their magnitude.
		{map[string]any{"plugin": "sdk", "hook": "raw", "args": json.RawMessage(`[[0.1, -2.5, 1e-7, 6.02214076e+23, 1.7976931348623157e+308]]`)},
			`{"ok":{"got":[0.1, -2.5, 1e-7, 6.02214076e+23, 1.7976931348623157e+308]}}`},
		{map[string]any{"plugin": "sdk", "hook": "chatty", "args": nil, "timeout_ms": 5000}, `{"ok":true,"output":"working\n"}`},
		// Any exported function, not only the declared hooks.
		{map[string]any{"plugin": "sdk", "hook": "wait_turn_matcher", "args": []any{map[string]any{"text": "x"}}}, `{"ok":{"type":"contains_text","value":"x"}}`},
	}
	for _, tt := range tests {
		res, rpcErr := c.call("plugin.call", tt.params)
		require.Nil(t, rpcErr, "%v", tt.params)
		require.JSONEq(t, tt.want, string(res))
	}

	errs := []struct {
		params map[string]any
		code   int64
		msg    string
	}{
		{map[string]any{"plugin": "nope", "hook": "add"}, CodeInvalidParams, `plugin not found: "nope"`},
		{map[string]any{"plugin": "sdk", "hook": "missing"}, CodeInvalidParams, `plugin sdk exports no function "missing"`},
		{map[string]any{"plugin": "sdk", "hook": "close"}, CodeInvalidParams, "close is the plugin's shutdown hook"},
		{map[string]any{"plugin": "sdk", "hook": "add", "args": map[string]any{"a": 1}}, CodeInvalidParams, "args: must be an array of positional arguments, got an object"},
		{map[string]any{"hook": "add"}, CodeInvalidParams, "plugin: one of plugin and source is required"},
		{map[string]any{"plugin": "sdk", "source": "return {}", "hook": "add"}, CodeInvalidParams, "source: plugin and source are exclusive"},
		{map[string]any{"plugin": "sdk"}, CodeInvalidParams, "hook"},
		{map[string]any{"plugin": "sdk", "hook": "add", "timeout_ms": 0}, CodeInvalidParams, "timeout_ms: must be positive"},
		// An integer a Lua number cannot hold exactly is refused, never rounded.
		{map[string]any{"plugin": "sdk", "hook": "add", "args": json.RawMessage(`[1, 9007199254740993]`)}, CodeInvalidParams, "args[1]: number 9007199254740993 is beyond ±2^53"},
		{map[string]any{"plugin": "sdk", "hook": "add", "args": json.RawMessage(`[9223372036854775807, 1]`)}, CodeInvalidParams, "args[0]: number 9223372036854775807 is beyond ±2^53"},
		// A Lua error is the plugin's failure, not the caller's.
		{map[string]any{"plugin": "sdk", "hook": "add", "args": []any{"x", 1}}, CodeInternalError, "attempt to perform arithmetic"},
	}
	for _, tt := range errs {
		requireError(t, c.callErr("plugin.call", tt.params), tt.code, tt.msg)
	}

	// A timeout far beyond the cap is cut to it (here the server's 200 ms,
	// below the 60 s default cap): the loop stops as a timeout.
	e := c.callErr("plugin.call", map[string]any{"plugin": "sdk", "hook": "spin", "timeout_ms": 3_600_000})
	requireError(t, e, CodeTimeout, `hook "spin" timed out after 200ms`)
	require.Equal(t, map[string]any{"plugin": "sdk", "hook": "spin", "timeout_ms": float64(200)}, errData(t, e))
	// The plugin's hook instance survives and answers the next call.
	res, rpcErr := c.call("plugin.call", map[string]any{"plugin": "sdk", "hook": "add", "args": []any{1, 1}})
	require.Nil(t, rpcErr)
	require.JSONEq(t, `{"ok":2}`, string(res))

	// Inline scripts need --allow-plugin-load.
	e = c.callErr("plugin.call", map[string]any{"source": "function add(a, b) return Ok(a + b) end", "hook": "add", "args": []any{3, 4}})
	requireError(t, e, CodePermissionDenied, "plugin.call")
	require.Equal(t, map[string]any{"method": "plugin.call", "reason": "server_did_not_grant_plugin_load"}, errData(t, e))
}

func TestPluginCallInline(t *testing.T) {
	env := sdkServer(t, Options{AllowPluginLoad: true})
	c := env.dial(t)
	res, rpcErr := c.call("plugin.call", map[string]any{"source": "function add(a, b) return Ok(a + b) end", "hook": "add", "args": []any{3, 4}})
	require.Nil(t, rpcErr)
	require.JSONEq(t, `{"ok":7}`, string(res))
	// No permissions beyond pure Lua.
	res, rpcErr = c.call("plugin.call", map[string]any{"source": `function probe()
  return {ptywright.action == nil, ptywright.matcher == nil, ptywright.emit == nil, ptywright.log == nil, io == nil, os == nil}
end`, "hook": "probe"})
	require.Nil(t, rpcErr)
	require.JSONEq(t, `{"ok":[true,true,true,true,true,true]}`, string(res))
	// A script that does not compile is a bad param.
	requireError(t, c.callErr("plugin.call", map[string]any{"source": "function x( end", "hook": "x"}), CodeInvalidParams, "source: plugin inline: (load)")
	e := c.callErr("plugin.call", map[string]any{"source": "function spin() while true do end end", "hook": "spin", "timeout_ms": 100})
	requireError(t, e, CodeTimeout, "timed out after 100ms")
	require.Equal(t, "inline", errData(t, e)["plugin"])
}

// TestEventsAreQueuedNotCoalesced: a client that stops reading while a
// plugin emits thousands of events gets them in order afterwards, minus
// the oldest beyond MaxQueuedEvents, whose number the next event delivered
// reports in dropped_events: nothing is lost without being counted.
func TestEventsAreQueuedNotCoalesced(t *testing.T) {
	env := sdkServer(t, Options{})
	const n, size = 3000, 2048 // 6 MB: far more than the socket buffers

	// The slow client: a raw connection that reads one response, then
	// nothing until the burst is over.
	nc, err := net.Dial("unix", env.path)
	require.NoError(t, err)
	defer nc.Close()
	r, w := NDJSON.Reader(nc), NDJSON.Writer(nc)
	require.NoError(t, w.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"server.set_notifications","params":{"enabled":true,"events":true}}`)))
	frame, err := r.ReadFrame()
	require.NoError(t, err)
	require.Contains(t, string(frame), `"events":true`)

	other := env.dial(t)
	var res json.RawMessage
	other.do("plugin.call", map[string]any{"plugin": "sdk", "hook": "burst", "args": []any{n, size}}, &res)
	require.JSONEq(t, `{"ok":3000}`, string(res))

	// Every event was posted before the call returned; now read them.
	last, received, dropped := 0, 0, 0
	for last < n {
		require.NoError(t, nc.SetReadDeadline(time.Now().Add(patience)))
		frame, err := r.ReadFrame()
		require.NoError(t, err, "after %d events (%d dropped), last %d", received, dropped, last)
		var m struct {
			Method string      `json:"method"`
			Params eventParams `json:"params"`
		}
		require.NoError(t, json.Unmarshal(frame, &m))
		if m.Method != notifyEvent || m.Params.Event != "sdk:burst" {
			continue
		}
		var p struct{ I int }
		require.NoError(t, json.Unmarshal(m.Params.Payload, &p))
		require.Equal(t, last+1+m.Params.DroppedEvents, p.I, "in order, each gap counted")
		last, received, dropped = p.I, received+1, dropped+m.Params.DroppedEvents
	}
	require.Equal(t, n, received+dropped)
	require.Positive(t, dropped, "the burst overflowed the queue")
	require.GreaterOrEqual(t, received, MaxQueuedEvents, "the queue was full when reading resumed")
}

// TestEventsDuringResubscription: plugins emit from inside classify,
// under the adapter handle's lock, while set_notifications reads every
// adapter's lifecycle (under that lock) with the connection's subscription
// locked: the event queue has a lock of its own, so the two never wait for
// each other.
func TestEventsDuringResubscription(t *testing.T) {
	env := sdkServer(t, Options{})
	c, typist := env.dial(t), env.dial(t)
	typist.startAdapter(map[string]any{"plugin": "sdk"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			typist.do("adapter.send", map[string]any{"adapter": "e1", "intent": "send_text", "params": map[string]any{"text": fmt.Sprint("line ", i)}}, nil)
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		default:
		}
		// Turning notifications back on re-seeds every session.
		c.do("server.set_notifications", map[string]any{"enabled": i%2 == 0, "events": true}, nil)
	}
}
