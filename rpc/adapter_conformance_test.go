//go:build unix

package rpc

import (
	"encoding/json"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestAdapterConformance sends every adapter.* and plugin.* method of the
// JSON-RPC reference, with the params its tables list, in both framings
// over a Unix socket and over stdio pipes, against the echo plugin loaded
// as --plugin loads it, and checks the documented result shapes.
func TestAdapterConformance(t *testing.T) {
	for _, tr := range transports {
		for _, f := range Framings() {
			t.Run(tr.name+"/"+string(f), func(t *testing.T) {
				srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
				// A second client, for cancelling a wait from another
				// connection.
				c, other := connectTwo(t, tr.name, srv, f)
				adapterConformance(t, c, other, f)
				pluginConformance(t, c, f)
			})
		}
	}
}

func adapterConformance(t *testing.T, c, other *client, f Framing) {
	m := c.ref(f, "1", `{ "jsonrpc": "2.0", "id": 1, "method": "server.capabilities" }`)
	var caps Capabilities
	require.NoError(t, json.Unmarshal(m.Result, &caps))
	want := []string{
		"adapter.cancel_wait", "adapter.close", "adapter.explain", "adapter.extract", "adapter.inspect", "adapter.lifecycle", "adapter.list",
		"adapter.live", "adapter.policy", "adapter.resume", "adapter.send", "adapter.snapshot", "adapter.start", "adapter.state",
		"adapter.transcript", "adapter.turn", "adapter.wait",
		"plugin.call", "plugin.capabilities", "plugin.describe", "plugin.load", "plugin.unload", "plugin.validate_manifest",
		"rpc.discover", "server.capabilities", "server.set_notifications",
		"session.close", "session.control", "session.create", "session.input", "session.kill", "session.list", "session.mouse", "session.resize", "session.run",
		"session.snapshot", "session.transcript", "session.wait",
	}
	require.True(t, sort.StringsAreSorted(want))
	require.Equal(t, want, caps.Methods)
	require.Equal(t, []string{"adapter.event", "adapter.lifecycle", "session.changed", "session.exited", "session.output"}, caps.Notifications)
	require.True(t, caps.EmbeddedLua)

	// adapter.list: every registered manifest, built-in and loaded, sorted.
	m = c.ref(f, "2", `{"jsonrpc":"2.0","id":2,"method":"adapter.list"}`)
	require.Nil(t, m.Error)
	var list struct {
		Plugins []map[string]any `json:"plugins"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &list))
	require.Equal(t, []string{"plugins"}, keys(t, m.Result))
	require.Len(t, list.Plugins, 2)
	require.Equal(t, builtinEcho, list.Plugins[0]["name"])
	require.Equal(t, "echo", list.Plugins[1]["name"])
	require.Equal(t, map[string]any{"program": "/bin/sh", "args": []any{"-c", "cat"}}, list.Plugins[1]["default_target"])

	m = c.ref(f, "3", `{"jsonrpc":"2.0","id":3,"method":"adapter.live"}`)
	require.JSONEq(t, `{"adapters":[]}`, string(m.Result))

	// adapter.start with the manifest's default_target.
	m = c.ref(f, "4", `{"jsonrpc":"2.0","id":4,"method":"adapter.start","params":{"plugin":"echo"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"adapter", "plugin", "session", "state"}, keys(t, m.Result))
	var started adapterStarted
	require.NoError(t, json.Unmarshal(m.Result, &started))
	require.Equal(t, adapterStarted{Adapter: "e1", Plugin: "echo", Session: "s1", State: started.State}, started)
	require.Equal(t, "idle", started.State.State)
	require.NotNil(t, started.State.Lifecycle, "the state carries the lifecycle")

	// adapter.start with an explicit program and every other param.
	m = c.ref(f, "5", `{"jsonrpc":"2.0","id":5,"method":"adapter.start","params":{"plugin":"echo","program":"/bin/sh","args":["-c","echo explicit; exec cat"],"cwd":"/","env":{"ECHO_TEST":"1"},"rows":30,"cols":100,"pixel_width":0,"pixel_height":0}}`)
	require.Nil(t, m.Error)
	require.NoError(t, json.Unmarshal(m.Result, &started))
	require.Equal(t, "e2", started.Adapter)
	require.Equal(t, "s2", started.Session)

	m = c.ref(f, "6", `{"jsonrpc":"2.0","id":6,"method":"adapter.live"}`)
	var live adapterLiveResult
	require.NoError(t, json.Unmarshal(m.Result, &live))
	require.Len(t, live.Adapters, 2)
	require.Equal(t, []string{"adapter", "finished", "plugin", "sequence", "session"}, keys(t, mustMarshal(t, live.Adapters[0])))
	require.Equal(t, liveAdapter{Adapter: "e1", Plugin: "echo", Session: "s1", Sequence: live.Adapters[0].Sequence}, live.Adapters[0])
	require.Equal(t, liveAdapter{Adapter: "e2", Plugin: "echo", Session: "s2", Sequence: live.Adapters[1].Sequence}, live.Adapters[1])

	m = c.ref(f, "7", `{"jsonrpc":"2.0","id":7,"method":"adapter.state","params":{"adapter":"e1"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"state"}, keys(t, m.Result))
	var st stateResult
	require.NoError(t, json.Unmarshal(m.Result, &st))
	require.Equal(t, "idle", st.State.State)
	require.Equal(t, "waiting", string(st.State.Lifecycle.State))

	m = c.ref(f, "8", `{"jsonrpc":"2.0","id":8,"method":"adapter.send","params":{"adapter":"e1","intent":"send_text","params":{"text":"hello"}}}`)
	require.Nil(t, m.Error)
	// The reference's state, and the receipt (additive).
	require.Equal(t, []string{"receipt", "state"}, keys(t, m.Result))
	require.NoError(t, json.Unmarshal(m.Result, &st))
	require.Equal(t, "sent", *st.State.LastIntent)

	// adapter.wait with the default intent (wait_turn_matcher).
	m = c.ref(f, "9", `{"jsonrpc":"2.0","id":9,"method":"adapter.wait","params":{"adapter":"e1","timeout_ms":10000}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"matched", "state"}, keys(t, m.Result))
	var w waited
	require.NoError(t, json.Unmarshal(m.Result, &w))
	require.Equal(t, "all", string(w.Matched.Kind))
	require.Equal(t, "echoed", w.State.State)
	require.Equal(t, "hello", w.State.Metadata["text"])
	require.NotNil(t, w.State.Lifecycle)

	// A lua predicate through the registry, and wait_id echoed.
	m = c.ref(f, "10", `{"jsonrpc":"2.0","id":10,"method":"adapter.wait","params":{"adapter":"e1","intent":"wait_echo_matcher","params":{"text":"hello"},"timeout_ms":10000,"wait_id":"w-hello"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"matched", "state", "wait_id"}, keys(t, m.Result))
	require.NoError(t, json.Unmarshal(m.Result, &w))
	require.Equal(t, "lua", string(w.Matched.Kind))
	require.Equal(t, "echo", w.Matched.Plugin)
	require.Equal(t, "has_text", w.Matched.Predicate)
	require.Equal(t, "hello", *w.Matched.Capture)
	require.Equal(t, "w-hello", w.WaitID)

	m = c.ref(f, "11", `{"jsonrpc":"2.0","id":11,"method":"adapter.turn","params":{"adapter":"e1","send":{"intent":"send_text","params":{"text":"again"}},"wait":{"intent":"wait_turn_matcher","params":{},"timeout_ms":10000,"wait_id":"t-again"}}}`)
	require.Nil(t, m.Error)
	require.NoError(t, json.Unmarshal(m.Result, &w))
	require.Equal(t, "echoed", w.State.State)
	require.Equal(t, "again", w.State.Metadata["text"])
	require.Equal(t, "t-again", w.WaitID)
	// The wait block may be omitted.
	m = c.ref(f, "12", `{"jsonrpc":"2.0","id":12,"method":"adapter.turn","params":{"adapter":"e1","send":{"intent":"send_text","params":{"text":"third"}}}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"matched", "receipt", "state"}, keys(t, m.Result))

	cancelFromAnotherConnection(t, c, other)

	m = c.ref(f, "13", `{"jsonrpc":"2.0","id":13,"method":"adapter.snapshot","params":{"adapter":"e1"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, snapshotKeys, keys(t, m.Result))
	var snap struct {
		PlainText string            `json:"plain_text"`
		Cells     []json.RawMessage `json:"cells"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &snap))
	require.Contains(t, snap.PlainText, "third")
	require.Len(t, snap.Cells, 24*80)
	m = c.ref(f, "13", `{"jsonrpc":"2.0","id":13,"method":"adapter.snapshot","params":{"adapter":"e2","redact":false,"redaction":{"enabled":true}}}`)
	require.Nil(t, m.Error)
	require.NoError(t, json.Unmarshal(m.Result, &snap))
	require.Len(t, snap.Cells, 30*100, "e2 was started at 30x100")

	m = c.ref(f, "14", `{"jsonrpc":"2.0","id":14,"method":"adapter.transcript","params":{"adapter":"e1"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"text"}, keys(t, m.Result))
	require.Contains(t, string(m.Result), "hello")

	m = c.ref(f, "15", `{"jsonrpc":"2.0","id":15,"method":"adapter.inspect","params":{"adapter":"e1"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"adapter", "body_text", "plain_text", "plugin", "projection", "sequence", "state", "status_text", "transcript_tail"}, keys(t, m.Result))
	var in struct {
		Adapter    string         `json:"adapter"`
		Plugin     string         `json:"plugin"`
		BodyText   string         `json:"body_text"`
		State      stateShape     `json:"state"`
		Projection map[string]any `json:"projection"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &in))
	require.Equal(t, "e1", in.Adapter)
	require.Equal(t, "echo", in.Plugin)
	require.Contains(t, in.BodyText, "third")
	require.Equal(t, "echoed", in.State.State)
	require.Contains(t, in.Projection["dialog_text"], "third")

	// adapter.extract over the projected dialog: a regex, sentinels, no
	// match, and both at once.
	m = c.ref(f, "16", `{"jsonrpc":"2.0","id":16,"method":"adapter.extract","params":{"adapter":"e1","regex":"(th\\w+)"}}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"matched":true,"text":"third","method":"tail_regex","searched_chars":`+strconv.Itoa(searchedChars(t, m.Result))+`}`, string(m.Result))
	c.sendText("e1", "ANSWER[42]")
	m = c.ref(f, "17", `{"jsonrpc":"2.0","id":17,"method":"adapter.extract","params":{"adapter":"e1","sentinels":["ANSWER[","]"],"tail_chars":4000}}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"matched":true,"text":"42","method":"sentinel","searched_chars":`+strconv.Itoa(searchedChars(t, m.Result))+`}`, string(m.Result))
	m = c.ref(f, "18", `{"jsonrpc":"2.0","id":18,"method":"adapter.extract","params":{"adapter":"e1","regex":"never (seen)"}}`)
	// No match is an outcome, not a caller's mistake.
	require.Nil(t, m.Error)
	n := searchedChars(t, m.Result)
	require.Positive(t, n)
	require.JSONEq(t, `{"matched":false,"text":"","method":"tail_regex","searched_chars":`+strconv.Itoa(n)+`}`, string(m.Result))
	m = c.ref(f, "18", `{"jsonrpc":"2.0","id":18,"method":"adapter.extract","params":{"adapter":"e1","regex":"x","sentinels":["a","b"]}}`)
	requireError(t, m.Error, CodeInvalidParams, "sentinels: exactly one of regex or sentinels")

	m = c.ref(f, "19", `{"jsonrpc":"2.0","id":19,"method":"adapter.lifecycle","params":{"adapter":"e1"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"since", "state", "submit_ready", "turn_id"}, keys(t, m.Result))
	require.Contains(t, string(m.Result), `"state":"waiting"`, "echo reports no assessment: its lifecycle never moves")

	// An adapter's session is the adapter's to close.
	m = c.ref(f, "20", `{"jsonrpc":"2.0","id":20,"method":"session.close","params":{"session":"s1"}}`)
	requireError(t, m.Error, CodeInvalidParams, "session s1 belongs to adapter e1: close it with adapter.close")

	// adapter.resume closes the prior adapter first, and starts anew.
	m = c.ref(f, "21", `{"jsonrpc":"2.0","id":21,"method":"adapter.resume","params":{"plugin":"echo","prior_adapter":"e2"}}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"adapter", "plugin", "session", "state"}, keys(t, m.Result))
	require.NoError(t, json.Unmarshal(m.Result, &started))
	require.Equal(t, "e3", started.Adapter)
	require.Equal(t, "s3", started.Session)
	m = c.ref(f, "22", `{"jsonrpc":"2.0","id":22,"method":"adapter.state","params":{"adapter":"e2"}}`)
	requireError(t, m.Error, CodeInvalidParams, `unknown adapter "e2"`)
	m = c.ref(f, "23", `{"jsonrpc":"2.0","id":23,"method":"session.list"}`)
	require.JSONEq(t, `{"sessions":["s1","s3"]}`, string(m.Result))
	// A prior adapter that is gone is not an error.
	m = c.ref(f, "24", `{"jsonrpc":"2.0","id":24,"method":"adapter.resume","params":{"plugin":"echo","prior_adapter":"e2"}}`)
	require.Nil(t, m.Error)
	require.Contains(t, string(m.Result), `"adapter":"e4"`)

	m = c.ref(f, "25", `{"jsonrpc":"2.0","id":25,"method":"adapter.close","params":{"adapter":"e1"}}`)
	// The close ended the program: SIGHUP, as a terminal that goes away.
	require.JSONEq(t, `{"closed":true,"exit":{"code":-1,"signal":"hup"}}`, string(m.Result))
	m = c.ref(f, "26", `{"jsonrpc":"2.0","id":26,"method":"adapter.send","params":{"adapter":"e1","intent":"send_text","params":{"text":"x"}}}`)
	requireError(t, m.Error, CodeInvalidParams, `unknown adapter "e1"`)
	m = c.ref(f, "27", `{"jsonrpc":"2.0","id":27,"method":"adapter.live"}`)
	require.NoError(t, json.Unmarshal(m.Result, &live))
	require.Len(t, live.Adapters, 2)
	require.Equal(t, "e3", live.Adapters[0].Adapter)
	require.Equal(t, "e4", live.Adapters[1].Adapter)

	adapterErrorCases(t, c)
}

// cancelFromAnotherConnection: a wait holds e1's lock; another connection
// cancels it by its wait_id; the waiter gets -32005 and a second cancel
// says it did nothing.
func cancelFromAnotherConnection(t *testing.T, c, other *client) {
	waiting := c.start("adapter.wait", map[string]any{
		"adapter": "e1", "intent": "wait_echo_matcher", "params": map[string]any{"text": "never"},
		"timeout_ms": 60000, "wait_id": "w-never",
	})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
	var res cancelWaitResult
	other.do("adapter.cancel_wait", map[string]any{"wait_id": "w-never"}, &res)
	require.Equal(t, cancelWaitResult{Cancelled: true, Adapter: "e1", WaitID: "w-never"}, res)
	m := c.await(waiting)
	requireError(t, m.Error, CodeCancelled, `wait "w-never" cancelled by adapter.cancel_wait`)
	require.Contains(t, string(m.Error.Data), "transcript_tail", "the cancelled wait's evidence")
	var again cancelWaitResult
	other.do("adapter.cancel_wait", map[string]any{"wait_id": "w-never"}, &again)
	require.Equal(t, cancelWaitResult{Cancelled: false, WaitID: "w-never"}, again)
	other.do("adapter.cancel_wait", map[string]any{"wait_id": "unknown"}, &res)
	require.False(t, res.Cancelled)
	// The lock is free again.
	c.do("adapter.state", map[string]any{"adapter": "e1"}, nil)
}

func adapterErrorCases(t *testing.T, c *client) {
	for _, tt := range []struct {
		method string
		params map[string]any
		code   int64
		msg    string
	}{
		{"adapter.start", map[string]any{"plugin": "nope"}, CodeInvalidParams, `plugin: ptywright: plugin not found: "nope"`},
		{"adapter.start", map[string]any{}, CodeInvalidParams, "plugin: required"},
		{"adapter.start", map[string]any{"plugin": "echo", "program": "/nonexistent/prog"}, CodeInvalidParams, "/nonexistent/prog"},
		{"adapter.start", map[string]any{"plugin": "echo", "cwd": "/nonexistent/dir"}, CodeInvalidParams, "cwd: "},
		{"adapter.start", map[string]any{"plugin": "echo", "rows": -1}, CodeInvalidParams, "rows: must be between 1"},
		{"adapter.start", map[string]any{"plugin": "echo", "prior_adapter": "e3"}, CodeInvalidParams, "prior_adapter: unknown field"},
		{"adapter.state", map[string]any{"adapter": "e99"}, CodeInvalidParams, `unknown adapter "e99"`},
		{"adapter.send", map[string]any{"adapter": "e3", "intent": "fly"}, CodeInvalidParams, `unknown intent "fly"`},
		{"adapter.send", map[string]any{"adapter": "e3", "intent": "send_text", "params": []any{1}}, CodeInvalidParams, "params: must be an object, got an array"},
		{"adapter.send", map[string]any{"adapter": "e3", "intent": "send_text", "params": map[string]any{}}, CodeInvalidParams, "params.text must be a non-empty string"},
		{"adapter.wait", map[string]any{"adapter": "e3", "intent": "wait_nothing_matcher"}, CodeInvalidParams, `unknown wait intent "wait_nothing_matcher"`},
		{"adapter.wait", map[string]any{"adapter": "e3", "intent": "wait_echo_matcher", "params": map[string]any{"text": "never"}, "timeout_ms": 20}, CodeTimeout, "timed out"},
		{"adapter.wait", map[string]any{"adapter": "e3", "timeout_ms": -1}, CodeInvalidParams, "timeout_ms: must be between 0"},
		{"adapter.wait", map[string]any{"adapter": "e3", "intent": "wait_lifecycle", "params": map[string]any{"state": "done"}}, CodeInvalidParams, `unknown lifecycle state "done"`},
		{"adapter.turn", map[string]any{"adapter": "e3", "send": map[string]any{}}, CodeInvalidParams, "send.intent: required"},
		{"adapter.turn", map[string]any{"adapter": "e3", "send": map[string]any{"intent": "interrupt"}, "wait": map[string]any{"timeout_ms": "soon"}}, CodeInvalidParams, "wait.timeout_ms: must be"},
		{"adapter.cancel_wait", map[string]any{}, CodeInvalidParams, "wait_id: required"},
		{"adapter.snapshot", map[string]any{"adapter": "e3", "redaction": map[string]any{"enabled": true, "extra_regexes": []string{"("}}}, CodeInvalidParams, "redaction.extra_regexes"},
		{"adapter.extract", map[string]any{"adapter": "e3"}, CodeInvalidParams, "regex: exactly one of regex or sentinels is required"},
		{"adapter.extract", map[string]any{"adapter": "e3", "sentinels": []string{"a"}}, CodeInvalidParams, "sentinels: must be [start, end]"},
		{"adapter.extract", map[string]any{"adapter": "e3", "regex": "("}, CodeInvalidParams, "regex: error parsing"},
		{"adapter.close", map[string]any{"adapter": "e99"}, CodeInvalidParams, `unknown adapter "e99"`},
	} {
		t.Run(tt.method+"/"+tt.msg, func(t *testing.T) {
			requireError(t, c.callErr(tt.method, tt.params), tt.code, tt.msg)
		})
	}
	t.Run("a wait_id in use is refused", func(t *testing.T) {
		waiting := c.start("adapter.wait", map[string]any{"adapter": "e3", "intent": "wait_echo_matcher", "params": map[string]any{"text": "never"}, "wait_id": "dup"})
		tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
		requireError(t, c.callErr("adapter.wait", map[string]any{"adapter": "e4", "wait_id": "dup"}), CodeInvalidParams, `wait_id: "dup" is already in use by a wait on adapter e3`)
		c.do("adapter.cancel_wait", map[string]any{"wait_id": "dup"}, nil)
		requireError(t, c.await(waiting).Error, CodeCancelled, "cancelled")
	})
	t.Run("input after the program exited", func(t *testing.T) {
		// Ctrl-C through the plugin ends `sh -c cat`, once cat runs: a
		// Ctrl-C that reaches dash while it starts is caught by its -c
		// handler and lost when it execs cat (the receipt says
		// "unverified", truthfully). A confirmed echo shows cat is up.
		var alive struct {
			Receipt struct {
				Effect string `json:"effect"`
			} `json:"receipt"`
		}
		c.do("adapter.send", map[string]any{"adapter": "e4", "intent": "send_text", "params": map[string]any{"text": "alive"}}, &alive)
		require.Equal(t, "confirmed", alive.Receipt.Effect)
		c.do("adapter.send", map[string]any{"adapter": "e4", "intent": "interrupt"}, nil)
		c.wait("s4", map[string]any{"type": "process_exited"})
		e := c.callErr("adapter.send", map[string]any{"adapter": "e4", "intent": "send_text", "params": map[string]any{"text": "late"}})
		requireError(t, e, CodeSessionClosed, "the program exited: ")
		var live adapterLiveResult
		c.do("adapter.live", nil, &live)
		require.True(t, live.Adapters[len(live.Adapters)-1].Finished)
	})
}

func pluginConformance(t *testing.T, c *client, f Framing) {
	m := c.ref(f, "30", `{"jsonrpc":"2.0","id":30,"method":"plugin.capabilities"}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"builtin_plugins", "embedded_lua", "kinds", "limits", "permissions", "runtimes"}, keys(t, m.Result))
	var caps struct {
		EmbeddedLua    bool             `json:"embedded_lua"`
		BuiltinPlugins []map[string]any `json:"builtin_plugins"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &caps))
	require.True(t, caps.EmbeddedLua)
	require.Len(t, caps.BuiltinPlugins, 1)
	require.Equal(t, builtinEcho, caps.BuiltinPlugins[0]["name"])

	m = c.ref(f, "31", `{"jsonrpc":"2.0","id":31,"method":"plugin.validate_manifest","params":{"manifest":{
"name": "claude-code",
"kind": "adapter",
"version": "0.1.0",
"runtime": "lua",
"entrypoint": "plugins/claude-code/main.lua",
"permissions": ["session.spawn","session.kill","session.resize","screen.read","transcript.read","input.write","matcher.wait"]
}}}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"valid":true}`, string(m.Result))
	for _, tt := range []struct {
		name, manifest, field, msg string
	}{
		{"unknown permission", `{"name":"x","kind":"adapter","version":"1","runtime":"lua","entrypoint":"main.lua","permissions":["net.http"]}`, "permissions[0]", `unknown permission "net.http"`},
		{"unknown field", `{"name":"x","kind":"adapter","version":"1","runtime":"lua","entrypoint":"main.lua","permissions":[],"colour":"red"}`, "colour", "colour"},
		{"escaping entrypoint", `{"name":"x","kind":"adapter","version":"1","runtime":"lua","entrypoint":"../main.lua","permissions":[]}`, "entrypoint", ".."},
		{"missing name", `{"kind":"adapter","version":"1","runtime":"lua","entrypoint":"main.lua","permissions":[]}`, "name", "name is required"},
	} {
		t.Run("validate_manifest/"+tt.name, func(t *testing.T) {
			m := c.ref(f, "32", `{"jsonrpc":"2.0","id":32,"method":"plugin.validate_manifest","params":{"manifest":`+tt.manifest+`}}`)
			requireError(t, m.Error, CodeInvalidParams, tt.msg)
			require.Equal(t, tt.field, errData(t, m.Error)["field"])
		})
	}
	requireError(t, c.callErr("plugin.validate_manifest", map[string]any{"manifest": "name = 'x'"}), CodeInvalidParams, "manifest: must be an object, got a string")

	m = c.ref(f, "33", `{"jsonrpc":"2.0","id":33,"method":"plugin.describe","params":{"plugin":"echo"}}`)
	require.Nil(t, m.Error)
	require.Subset(t, keys(t, m.Result), []string{"intents", "manifest", "plugin", "states", "wait_matchers"})
	var d struct {
		Plugin       string              `json:"plugin"`
		Intents      []map[string]any    `json:"intents"`
		WaitMatchers []map[string]any    `json:"wait_matchers"`
		States       []map[string]any    `json:"states"`
		Manifest     map[string]any      `json:"manifest"`
		Extra        map[string][]string `json:"-"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &d))
	require.Equal(t, "echo", d.Plugin)
	require.Equal(t, "echo", d.Manifest["name"])
	require.Equal(t, "send_text", d.Intents[0]["name"])
	require.Equal(t, "wait_turn_matcher", d.WaitMatchers[0]["name"])
	require.Equal(t, "idle", d.States[0]["name"])
	requireError(t, c.callErr("plugin.describe", map[string]any{"plugin": "nope"}), CodeInvalidParams, "plugin not found")

	// This server was not started with plugin loading allowed.
	m = c.ref(f, "34", `{"jsonrpc":"2.0","id":34,"method":"plugin.load","params":{"manifest_path":"path/to/manifest.toml"}}`)
	requireError(t, m.Error, CodePermissionDenied, "plugin loading allowed")
	require.JSONEq(t, `{"method":"plugin.load","reason":"server_did_not_grant_plugin_load"}`, string(m.Error.Data))
	m = c.ref(f, "35", `{"jsonrpc":"2.0","id":35,"method":"plugin.unload","params":{"plugin":"echo"}}`)
	requireError(t, m.Error, CodePermissionDenied, "plugin loading allowed")
	require.JSONEq(t, `{"method":"plugin.unload","reason":"server_did_not_grant_plugin_load"}`, string(m.Error.Data))
}

// connectTwo connects two clients to srv over the named transport: two
// connections to one socket, or two stdio streams.
func connectTwo(t *testing.T, transport string, srv *Server, f Framing) (*client, *client) {
	if transport == "unix" {
		srv.opts.Framing = f
		path := serveUnix(t, srv)
		return dialUnix(t, path, f), dialUnix(t, path, f)
	}
	return newClient(t, serveStdio(t, srv, f), f), newClient(t, serveStdio(t, srv, f), f)
}

func mustMarshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// searchedChars reads an adapter.extract result's searched_chars.
func searchedChars(t *testing.T, raw json.RawMessage) int {
	t.Helper()
	var r struct {
		SearchedChars int `json:"searched_chars"`
	}
	require.NoError(t, json.Unmarshal(raw, &r))
	return r.SearchedChars
}
