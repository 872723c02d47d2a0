//go:build unix

package rpc

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/manifest"
	"ptywright/plugins"
)

// The test plugins' manifests: echo is shared with the root package's tests;
// turns reports assessments (so it has a lifecycle); readonly may only
// spawn and read the screen.
const (
	echoManifest     = "../testdata/plugins/echo/manifest.toml"
	turnsManifest    = "testdata/plugins/turns/manifest.toml"
	readonlyManifest = "testdata/plugins/readonly/manifest.toml"
)

// builtinEcho is the name of the echo plugin registered as a built-in, so
// tests can check what built-ins refuse.
const builtinEcho = "builtin-echo"

// newPlugins returns a plugin registry, closed at the end of the test
// (after the servers using it), holding builtin-echo as its only built-in
// (the embedded ones are left out, so the lists the tests expect do not
// change when a built-in is added) and the plugins of manifests loaded as
// --plugin loads them.
func newPlugins(t testing.TB, manifests ...string) *plugins.Registry {
	t.Helper()
	p, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	lm, err := manifest.LoadFile(echoManifest)
	require.NoError(t, err)
	src, err := lm.ReadSource()
	require.NoError(t, err)
	m := lm.Manifest
	m.Name = builtinEcho
	require.NoError(t, p.RegisterBuiltin(m, src))
	for _, path := range manifests {
		_, err := p.Load(path)
		require.NoError(t, err)
	}
	return p
}

// luaAdapterServer serves a registry holding one Lua adapter plugin, name,
// with every permission an adapter uses, extra at the end of its manifest
// and source as its main.lua, and returns a client of it. logger (nil:
// testLogger) is the registry's and the server's.
func luaAdapterServer(t *testing.T, name, extra, source string, logger *slog.Logger) *client {
	t.Helper()
	if logger == nil {
		logger = testLogger(t)
	}
	dir := t.TempDir()
	manifest := "name = \"" + name + "\"\nkind = \"adapter\"\nversion = \"0.1.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\n" +
		`permissions = ["session.spawn", "session.kill", "screen.read", "transcript.read", "input.write", "matcher.wait"]` + "\n" + extra
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(manifest), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), []byte(source), 0o600))
	p, err := plugins.New(plugins.Options{Logger: logger})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, err = p.Load(filepath.Join(dir, "manifest.toml"))
	require.NoError(t, err)
	return dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: p, Logger: logger})), NDJSON)
}

// echoAdapterPrinting serves the echo plugin, starts it on a shell that
// prints text with printf (then sleeps) and returns once mark is on the
// screen.
func echoAdapterPrinting(t *testing.T, text, mark string) (*client, adapterStarted) {
	t.Helper()
	c := dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: newPlugins(t, echoManifest)})), NDJSON)
	a := c.startAdapter(map[string]any{
		"plugin":  "echo",
		"program": "/bin/sh",
		"args":    []string{"-c", "printf '" + text + "'; sleep 30"},
	})
	c.do("session.wait", map[string]any{"session": a.Session, "matcher": containsText(mark), "timeout_ms": patience.Milliseconds()}, nil)
	return c, a
}

// adapterStarted is adapter.start's and adapter.resume's result.
type adapterStarted struct {
	Adapter string     `json:"adapter"`
	Plugin  string     `json:"plugin"`
	Session string     `json:"session"`
	State   stateShape `json:"state"`
}

// stateShape is a StateSnapshot as a client reads it.
type stateShape struct {
	State      string                    `json:"state"`
	Evidence   string                    `json:"evidence"`
	LastIntent *string                   `json:"last_intent"`
	Metadata   map[string]any            `json:"metadata"`
	Lifecycle  *contract.LifecycleStatus `json:"lifecycle"`
}

// waited is adapter.wait's and adapter.turn's result.
type waited struct {
	State   stateShape             `json:"state"`
	Matched ptywright.MatchOutcome `json:"matched"`
	WaitID  string                 `json:"wait_id"`
}

func (c *client) startAdapter(params map[string]any) adapterStarted {
	c.t.Helper()
	var res adapterStarted
	c.do("adapter.start", params, &res)
	require.NotEmpty(c.t, res.Adapter)
	return res
}

// sendText types text through the echo plugin and waits for its echo.
func (c *client) sendText(adapter, text string) waited {
	c.t.Helper()
	var res waited
	c.do("adapter.turn", map[string]any{
		"adapter": adapter,
		"send":    map[string]any{"intent": "send_text", "params": map[string]any{"text": text}},
		"wait":    map[string]any{"timeout_ms": patience.Milliseconds()},
	}, &res)
	require.Equal(c.t, "echoed", res.State.State, "%+v", res)
	return res
}

// requireError checks an error response's code and that its message
// contains msg.
func requireError(t *testing.T, e *Error, code int64, msg string) {
	t.Helper()
	require.NotNil(t, e)
	require.Equal(t, code, e.Code, e.Message)
	require.Contains(t, e.Message, msg)
}

// errData decodes an error's data object.
func errData(t *testing.T, e *Error) map[string]any {
	t.Helper()
	var d map[string]any
	require.NoError(t, json.Unmarshal(e.Data, &d), "%s", e.Data)
	return d
}
