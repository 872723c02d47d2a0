//go:build unix

package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/contract"

	"ptywright/internal/tuitest"
)

// TestPluginLoadUnload: with plugin loading allowed, a client loads a
// plugin, starts an adapter on it, cannot unload it while the adapter
// lives, and unloads it after adapter.close. Built-ins are neither
// shadowed nor unloaded.
func TestPluginLoadUnload(t *testing.T) {
	for _, tr := range transports {
		for _, f := range Framings() {
			t.Run(tr.name+"/"+string(f), func(t *testing.T) {
				srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest), AllowPluginLoad: true})
				pluginLoadUnload(t, tr.connect(t, srv, f), f)
			})
		}
	}
}

func pluginLoadUnload(t *testing.T, c *client, f Framing) {
	abs, err := filepath.Abs(turnsManifest)
	require.NoError(t, err)
	m := c.ref(f, "1", `{
"jsonrpc": "2.0",
"id": 1,
"method": "plugin.load",
"params": { "manifest_path": "`+abs+`" }
}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"plugin":"turns"}`, string(m.Result))
	var loaded loadResult
	var list adapterListResult
	c.do("adapter.list", nil, &list)
	names := make([]string, len(list.Plugins))
	for i, m := range list.Plugins {
		names[i] = m.Name
	}
	require.Equal(t, []string{builtinEcho, "echo", "turns"}, names)

	dir := t.TempDir()
	shadow := filepath.Join(dir, "manifest.toml")
	require.NoError(t, os.WriteFile(shadow, []byte(`name = "builtin-echo"
kind = "adapter"
version = "1"
runtime = "lua"
entrypoint = "main.lua"
permissions = []
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), []byte("return {classify = function() return {state = 'x'} end}\n"), 0o600))
	escape := filepath.Join(t.TempDir(), "manifest.toml")
	require.NoError(t, os.WriteFile(escape, []byte(`name = "escape"
kind = "adapter"
version = "1"
runtime = "lua"
entrypoint = "../main.lua"
permissions = []
`), 0o600))
	for _, tt := range []struct {
		method string
		params map[string]any
		msg    string
	}{
		{"plugin.load", map[string]any{"manifest_path": turnsManifest}, `plugin already registered: "turns"`},
		{"plugin.load", map[string]any{"manifest_path": shadow}, "built-in plugin"},
		{"plugin.load", map[string]any{"manifest_path": escape}, "entrypoint"},
		{"plugin.load", map[string]any{"manifest_path": filepath.Join(dir, "missing.toml")}, "no such file"},
		{"plugin.load", map[string]any{"manifest_path": ""}, "manifest_path: must not be empty"},
		{"plugin.unload", map[string]any{"plugin": builtinEcho}, `built-in plugin: "builtin-echo" cannot be unloaded`},
		{"plugin.unload", map[string]any{"plugin": "nope"}, `plugin not found: "nope"`},
	} {
		t.Run(tt.method+"/"+tt.msg, func(t *testing.T) {
			requireError(t, c.callErr(tt.method, tt.params), CodeInvalidParams, tt.msg)
		})
	}

	a := c.startAdapter(map[string]any{"plugin": "turns"})
	b := c.startAdapter(map[string]any{"plugin": "turns"})
	e := c.startAdapter(map[string]any{"plugin": "echo"})
	requireError(t, c.callErr("plugin.unload", map[string]any{"plugin": "turns"}), CodeInvalidParams, `plugin "turns" has live adapters (e1, e2): close them with adapter.close first`)
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	c.do("adapter.close", map[string]any{"adapter": b.Adapter}, nil)
	var unloaded map[string]bool
	c.do("plugin.unload", map[string]any{"plugin": "turns"}, &unloaded)
	require.Equal(t, map[string]bool{"unloaded": true}, unloaded)
	// The reference's example, once echo's adapter is closed.
	m = c.ref(f, "2", `{
"jsonrpc": "2.0",
"id": 2,
"method": "plugin.unload",
"params": { "plugin": "echo" }
}`)
	requireError(t, m.Error, CodeInvalidParams, `plugin "echo" has live adapters (e3)`)
	c.do("adapter.close", map[string]any{"adapter": e.Adapter}, nil)
	m = c.ref(f, "2", `{
"jsonrpc": "2.0",
"id": 2,
"method": "plugin.unload",
"params": { "plugin": "echo" }
}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"unloaded":true}`, string(m.Result))
	requireError(t, c.callErr("adapter.start", map[string]any{"plugin": "turns"}), CodeInvalidParams, "plugin not found")
	requireError(t, c.callErr("plugin.describe", map[string]any{"plugin": "turns"}), CodeInvalidParams, "plugin not found")
	// And it can be loaded again.
	c.do("plugin.load", map[string]any{"manifest_path": turnsManifest}, &loaded)
	require.Equal(t, "turns", loaded.Plugin)
}

// TestAdapterPermissionGating: a plugin that declares only session.spawn
// and screen.read may start and be read, and every other adapter method is
// denied with -32004 {method, required_permission}.
func TestAdapterPermissionGating(t *testing.T) {
	// nospawn is readonly without session.spawn.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(filepath.Dir(readonlyManifest), "main.lua"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), src, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(`name = "nospawn"
kind = "adapter"
version = "1"
runtime = "lua"
entrypoint = "main.lua"
permissions = ["screen.read"]
[default_target]
program = "/bin/sh"
`), 0o600))
	srv := newServer(t, Options{Plugins: newPlugins(t, readonlyManifest, filepath.Join(dir, "manifest.toml"))})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)

	a := c.startAdapter(map[string]any{"plugin": "readonly"})
	require.Equal(t, "watching", a.State.State)
	c.wait(a.Session, containsText("read-only"))
	for _, method := range []string{"adapter.state", "adapter.snapshot", "adapter.inspect", "adapter.lifecycle"} {
		c.do(method, map[string]any{"adapter": a.Adapter}, nil)
	}
	c.do("adapter.extract", map[string]any{"adapter": a.Adapter, "regex": "read-(only)"}, nil)

	for _, tt := range []struct {
		method     string
		params     map[string]any
		permission string
	}{
		{"adapter.start", map[string]any{"plugin": "nospawn"}, "session.spawn"},
		{"adapter.resume", map[string]any{"plugin": "nospawn", "prior_adapter": a.Adapter}, "session.spawn"},
		{"adapter.send", map[string]any{"adapter": a.Adapter, "intent": "anything"}, "input.write"},
		{"adapter.wait", map[string]any{"adapter": a.Adapter}, "matcher.wait"},
		{"adapter.turn", map[string]any{"adapter": a.Adapter, "send": map[string]any{"intent": "anything"}}, "input.write"},
		{"adapter.transcript", map[string]any{"adapter": a.Adapter}, "transcript.read"},
		{"adapter.close", map[string]any{"adapter": a.Adapter}, "session.kill"},
	} {
		t.Run(tt.method, func(t *testing.T) {
			e := c.callErr(tt.method, tt.params)
			requireError(t, e, CodePermissionDenied, tt.method+" requires the "+tt.permission+" permission")
			require.Equal(t, "permission denied: "+tt.method+" requires the "+tt.permission+" permission", e.Message, "said once")
			require.Equal(t, map[string]any{"method": tt.method, "required_permission": tt.permission}, errData(t, e))
		})
	}
	// The denied resume left its prior adapter running.
	var live adapterLiveResult
	c.do("adapter.live", nil, &live)
	require.Len(t, live.Adapters, 1)
	// Methods that need no permission work on any adapter.
	var cw cancelWaitResult
	c.do("adapter.cancel_wait", map[string]any{"wait_id": "none"}, &cw)
	require.False(t, cw.Cancelled)
}

// TestAdapterNotifications: a client subscribed before adapter.start with
// an adapters filter gets its session's changes and output and its
// lifecycle as the turn completes, and nothing of other sessions.
func TestAdapterNotifications(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest, turnsManifest)})
	path := serveUnix(t, srv)
	sub := dialUnix(t, path, NDJSON)
	driver := dialUnix(t, path, NDJSON)

	var echoed notificationsResult
	sub.do("server.set_notifications", map[string]any{"enabled": true, "adapters": []string{"e2"}}, &echoed)
	require.Equal(t, notificationsResult{Enabled: true, Adapters: []string{"e2"}, Sessions: []string{}}, echoed)

	other := driver.startAdapter(map[string]any{"plugin": "echo"}) // e1: filtered out
	plain := driver.sh("while :; do echo plain; sleep 0.05; done")
	a := driver.startAdapter(map[string]any{"plugin": "turns"})
	require.Equal(t, "e2", a.Adapter)
	driver.sendText(other.Adapter, "noise")

	var st stateResult
	driver.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_prompt", "params": map[string]any{"prompt": "question"}}, &st)
	var w waited
	driver.do("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_lifecycle", "params": map[string]any{"state": "completed"}, "timeout_ms": patience.Milliseconds()}, &w)
	require.Equal(t, ptywright.MatchLifecycle, w.Matched.Kind)
	require.Equal(t, "completed", w.Matched.Text)
	require.Equal(t, contract.LifecycleCompleted, w.State.Lifecycle.State)
	require.Equal(t, 1, w.State.Lifecycle.TurnID)

	var output string
	var states []contract.LifecycleState
	sawChanged := false
	for len(states) == 0 || states[len(states)-1] != contract.LifecycleCompleted {
		m := sub.note()
		switch m.Method {
		case notifyLifecycle:
			var p struct {
				Adapter   string                   `json:"adapter"`
				Session   string                   `json:"session"`
				Lifecycle contract.LifecycleStatus `json:"lifecycle"`
			}
			require.NoError(t, json.Unmarshal(m.Params, &p))
			require.Equal(t, a.Adapter, p.Adapter)
			require.Equal(t, a.Session, p.Session)
			states = append(states, p.Lifecycle.State)
		case notifyChanged, notifyOutput:
			p := decodeNote(t, m)
			require.Equal(t, a.Session, p.Session, "%s of a session outside the filter", m.Method)
			sawChanged = sawChanged || m.Method == notifyChanged
			output += p.Output
		default:
			t.Fatalf("unexpected notification %s", m.Method)
		}
	}
	t.Logf("lifecycle notifications: %v", states)
	require.True(t, sawChanged)
	require.Contains(t, output, "question")
	require.NotContains(t, output, "noise")
	require.NotContains(t, output, "plain")
	require.Equal(t, contract.LifecycleCompleted, states[len(states)-1])
	var status contract.LifecycleStatus
	driver.do("adapter.lifecycle", map[string]any{"adapter": a.Adapter}, &status)
	require.Equal(t, contract.LifecycleCompleted, status.State)
	require.True(t, status.SubmitReady)
	require.Equal(t, 1, status.TurnID)

	// Closing the adapter ends its session: the subscriber hears the exit.
	driver.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	for {
		m := sub.note()
		if m.Method == notifyExited {
			require.Equal(t, a.Session, decodeNote(t, m).Session)
			break
		}
	}
	driver.do("session.close", map[string]any{"session": plain}, nil)
}

// TestAdapterRecording: record_path on adapter.start and session.create
// writes an asciicast recording that ReadRecording accepts, and refuses an
// existing file.
func TestAdapterRecording(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	dir := t.TempDir()

	adapterCast := filepath.Join(dir, "adapter.cast")
	a := c.startAdapter(map[string]any{"plugin": "echo", "record_path": adapterCast})
	c.sendText(a.Adapter, "recorded")
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)

	sessionCast := filepath.Join(dir, "session.cast")
	id := c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo secret API_KEY=sk-abcdefghijklmnopqrstuvwx; sleep 30"}, "record_path": sessionCast})
	c.wait(id, containsText("secret"))
	c.do("session.close", map[string]any{"session": id}, nil)
	rawCast := filepath.Join(dir, "raw.cast")
	id = c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo secret API_KEY=sk-abcdefghijklmnopqrstuvwx; sleep 30"}, "record_path": rawCast, "record_raw": true})
	c.wait(id, containsText("secret"))
	c.do("session.close", map[string]any{"session": id}, nil)

	for _, tt := range []struct {
		path, want, not string
	}{
		{adapterCast, "recorded", ""},
		{sessionCast, "API_KEY=[REDACTED]", "sk-abcdefghijklmnopqrstuvwx"},
		{rawCast, "sk-abcdefghijklmnopqrstuvwx", ""},
	} {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			fi, err := os.Stat(tt.path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			f, err := os.Open(tt.path)
			require.NoError(t, err)
			defer f.Close()
			rec, err := asciicast.Read(f)
			require.NoError(t, err)
			var out strings.Builder
			for _, ev := range rec.Events {
				if ev.Type == asciicast.EventOutput {
					out.WriteString(ev.Data)
				}
			}
			require.Contains(t, out.String(), tt.want)
			if tt.not != "" {
				require.NotContains(t, out.String(), tt.not)
			}
		})
	}

	for _, method := range []string{"session.create", "adapter.start"} {
		params := map[string]any{"program": "/bin/true", "record_path": sessionCast}
		if method == "adapter.start" {
			params["plugin"] = "echo"
		}
		requireError(t, c.callErr(method, params), CodeInvalidParams, "record_path")
	}
}

// TestAdapterCloseEndsItsWait: adapter.close while a wait holds the
// adapter's lock ends the wait (session closed) instead of waiting for it.
func TestAdapterCloseEndsItsWait(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	path := serveUnix(t, srv)
	c := dialUnix(t, path, NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})
	waiting := c.start("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "never"}, "timeout_ms": time.Hour.Milliseconds()})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	requireError(t, c.await(waiting).Error, CodeSessionClosed, "session closed")
	var list sessionListResult
	c.do("session.list", nil, &list)
	require.Empty(t, list.Sessions)
}
