//go:build unix

package rpc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// schemaClient calls methods and checks every result against the result
// schema rpc.discover gives for the method.
type schemaClient struct {
	t          *testing.T
	c          *client
	methods    map[string]map[string]any
	components map[string]any
	called     map[string]bool
}

// call calls method and validates its result; out, if not nil, receives
// the result.
func (sc *schemaClient) call(method string, params, out any) {
	sc.t.Helper()
	raw, rpcErr := sc.c.call(method, params)
	require.Nil(sc.t, rpcErr, "%s: %v", method, rpcErr)
	m, ok := sc.methods[method]
	require.True(sc.t, ok, "%s is not in rpc.discover", method)
	result := m["result"].(map[string]any)["schema"].(map[string]any)
	if method != "rpc.discover" { // its schema is OpenRPC's meta-schema: checkOpenRPC checks it
		msg := validate(result, decodeJSON(sc.t, raw), sc.components, method)
		require.Empty(sc.t, msg, "%s answered %s", method, raw)
	}
	sc.called[method] = true
	if out != nil {
		require.NoError(sc.t, json.Unmarshal(raw, out))
	}
}

// TestDiscoverResultsMatchSchemas calls every method of a server with a
// plugin registry, once at least, and checks each result, and every
// notification that arrived meanwhile, against rpc.discover's schemas: the
// result types the table names are the ones the handlers answer, lists
// and maps are never null, and a new method needs a call here.
func TestDiscoverResultsMatchSchemas(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, turnsManifest), AllowPluginLoad: true})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	doc, methods, notes := discoverDoc(t, c)
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	sc := &schemaClient{t: t, c: c, methods: methods, components: components, called: map[string]bool{}}
	timeout := patience.Milliseconds()

	sc.call("rpc.discover", nil, nil)
	sc.call("server.capabilities", nil, nil)
	sc.call("server.set_notifications", map[string]any{"enabled": true, "events": true}, nil)

	var created sessionResult
	sc.call("session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "printf '\\033[?1000;1006hready\\n'; exec cat"}}, &created)
	s := created.Session
	sc.call("session.list", nil, nil)
	sc.call("session.wait", map[string]any{"session": s, "matcher": containsText("ready"), "timeout_ms": timeout}, nil)
	sc.call("session.input", map[string]any{"session": s, "action": map[string]any{"type": "text", "value": "hello\n"}}, nil)
	sc.call("session.wait", map[string]any{"session": s, "matcher": map[string]any{"type": "screen_regex", "value": "(?m)^hello$"}, "timeout_ms": timeout}, nil)
	var clicked mouseResult
	sc.call("session.mouse", map[string]any{"session": s, "kind": "click", "text": "hello", "mods": []string{"ctrl"}}, &clicked)
	require.Equal(t, mouseResult{Sent: true, Bytes: 20, Sequence: clicked.Sequence, Row: 1, Col: 0}, clicked)
	sc.call("session.snapshot", map[string]any{"session": s, "scrollback": true}, nil)
	sc.call("session.snapshot", map[string]any{"session": s, "cell_format": "runs", "rows": map[string]any{"from": 0, "to": 2}}, nil)
	sc.call("session.snapshot", map[string]any{"session": s, "cells": false, "rows": map[string]any{"from": 1}}, nil)
	sc.call("session.transcript", map[string]any{"session": s, "redact": false}, nil)
	sc.call("session.control", map[string]any{"session": s, "action": "take"}, nil)
	sc.call("session.control", map[string]any{"session": s, "action": "release"}, nil)
	sc.call("session.resize", map[string]any{"session": s, "rows": 30, "cols": 100}, nil)
	sc.call("session.kill", map[string]any{"session": s}, nil)
	sc.call("session.wait", map[string]any{"session": s, "matcher": map[string]any{"type": "process_exited"}, "timeout_ms": timeout}, nil)
	sc.call("session.close", map[string]any{"session": s}, nil)
	sc.call("session.create", map[string]any{"preset": "sh"}, &created)
	var ran runResult
	sc.call("session.run", map[string]any{"session": created.Session, "command": "echo ran; false", "timeout_ms": timeout}, &ran)
	require.Equal(t, runResult{Output: "ran\n", Status: 1}, ran)
	sc.call("session.close", map[string]any{"session": created.Session}, nil)

	sc.call("adapter.list", nil, nil)
	var started startResult
	sc.call("adapter.start", map[string]any{"plugin": "turns"}, &started)
	a := started.Adapter
	sc.call("adapter.live", nil, nil)
	sc.call("adapter.state", map[string]any{"adapter": a}, nil)
	var sent sendResult
	sc.call("adapter.send", map[string]any{"adapter": a, "intent": "send_prompt", "params": map[string]any{"prompt": "first"}}, &sent)
	sc.call("adapter.wait", map[string]any{"adapter": a, "timeout_ms": timeout, "after_sequence": sent.Receipt.Sequence}, nil)
	sc.call("adapter.turn", map[string]any{"adapter": a, "send": map[string]any{"intent": "send_prompt", "params": map[string]any{"prompt": "answer: 42"}},
		"wait": map[string]any{"timeout_ms": timeout, "wait_id": "w1"}}, nil)
	sc.call("adapter.cancel_wait", map[string]any{"wait_id": "w1"}, nil)
	sc.call("adapter.snapshot", map[string]any{"adapter": a}, nil)
	sc.call("adapter.snapshot", map[string]any{"adapter": a, "cell_format": "runs", "rows": map[string]any{"from": 1, "to": 3}}, nil)
	sc.call("adapter.transcript", map[string]any{"adapter": a}, nil)
	sc.call("adapter.inspect", map[string]any{"adapter": a}, nil)
	var explained explainResult
	sc.call("adapter.explain", map[string]any{"adapter": a}, &explained)
	sc.call("adapter.explain", map[string]any{"adapter": a, "sequence": explained.Explanation.Sequence}, nil)
	sc.call("adapter.extract", map[string]any{"adapter": a, "regex": `answer: (\d+)`}, nil)
	sc.call("adapter.extract", map[string]any{"adapter": a, "sentinels": []string{"<<", ">>"}}, nil)
	sc.call("adapter.lifecycle", map[string]any{"adapter": a}, nil)
	sc.call("adapter.policy", map[string]any{"adapter": a}, nil)
	var resumed startResult
	sc.call("adapter.resume", map[string]any{"plugin": "turns", "prior_adapter": a}, &resumed)
	sc.call("adapter.close", map[string]any{"adapter": resumed.Adapter}, nil)

	sc.call("plugin.capabilities", nil, nil)
	sc.call("plugin.validate_manifest", map[string]any{"manifest": map[string]any{
		"name": "hello", "kind": "macro", "version": "0.1.0", "runtime": "lua", "entrypoint": "main.lua", "permissions": []string{},
	}}, nil)
	sc.call("plugin.describe", map[string]any{"plugin": "turns"}, nil)
	sc.call("plugin.describe", map[string]any{"plugin": builtinEcho}, nil)
	sc.call("plugin.load", map[string]any{"manifest_path": echoManifest}, nil)
	sc.call("plugin.call", map[string]any{"plugin": "echo", "hook": "has_text", "args": []any{map[string]any{"screen": "x", "params": map[string]any{"text": "x"}}}}, nil)
	sc.call("plugin.call", map[string]any{"source": `function f(n) print("n is", n) return Ok(n) end`, "hook": "f", "args": []any{7}}, nil)
	sc.call("plugin.call", map[string]any{"source": `function f() return Err("no") end`, "hook": "f"}, nil)
	sc.call("plugin.unload", map[string]any{"plugin": "echo"}, nil)

	require.Equal(t, sortedKeys(methods), sortedKeys(sc.called), "every method is called")

	// The notifications: at least the session's, each valid.
	seen := map[string]bool{}
	deadline := time.After(patience)
	for !seen[notifyExited] || !seen[notifyOutput] || !seen[notifyChanged] || !seen[notifyEvent] || !seen[notifyLifecycle] || len(c.notes) > 0 {
		var m message
		select {
		case m = <-c.notes:
		case <-deadline:
			t.Fatalf("notifications seen: %v", seen)
		}
		n, ok := notes[m.Method]
		require.True(t, ok, "%s is not in rpc.discover's x-notifications", m.Method)
		msg := validate(paramsObject(n), decodeJSON(t, m.Params), components, m.Method)
		require.Empty(t, msg, "%s: %s", m.Method, m.Params)
		seen[m.Method] = true
	}
}

// paramsObject is a method's by-name params as one object schema.
func paramsObject(m map[string]any) map[string]any {
	props := map[string]any{}
	var required []any
	for _, p := range m["params"].([]any) {
		cd := p.(map[string]any)
		props[cd["name"].(string)] = cd["schema"]
		if cd["required"] == true {
			required = append(required, cd["name"])
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}
