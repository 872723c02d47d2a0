//go:build unix

package rpc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/manifest"
	"ptywright/plugins"
)

// TestBuiltinPluginParamsAreInvalidParams: params a built-in plugin
// rejects (send_prompt without a prompt, or with a number for one) are
// -32602 with the plugin's message, not -32603, over a real socket; the
// adapter is unharmed.
func TestBuiltinPluginParamsAreInvalidParams(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, plugins.Close()) })
	srv := newServer(t, Options{Plugins: plugins})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	for _, tt := range []struct {
		plugin, msg string
	}{
		{"claude-code", "send_prompt: params.prompt must be a non-empty string"},
		{"codex", "send_prompt: params.prompt: want a non-empty string"},
	} {
		t.Run(tt.plugin, func(t *testing.T) {
			a := c.startAdapter(map[string]any{"plugin": tt.plugin, "program": "/bin/sh", "args": []string{"-c", "cat"}})
			for _, params := range []map[string]any{{}, {"prompt": 42}, {"prompt": ""}, {"prompt": map[string]any{"text": "x"}}} {
				e := c.callErr("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_prompt", "params": params})
				requireError(t, e, CodeInvalidParams, tt.msg)
				require.Contains(t, e.Message, "plugin "+tt.plugin)
			}
			c.do("adapter.state", map[string]any{"adapter": a.Adapter}, nil)
			c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
		})
	}
}

// TestExactErrorCodes: each of the cases answers with its exact
// code over a real socket.
func TestExactErrorCodes(t *testing.T) {
	dir := t.TempDir()
	plugins := newPlugins(t, echoManifest,
		writePlugin(t, dir, "macro-one", "macro", `return { run = function() return Ok(1) end }`),
		writePlugin(t, dir, "matcher-one", "matcher", `return { never = function() return false end }`),
	)
	srv := newServer(t, Options{Plugins: plugins, AllowPluginLoad: true})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)

	t.Run("inline script with a syntax error", func(t *testing.T) {
		e := c.callErr("plugin.call", map[string]any{"source": "return {", "hook": "f"})
		requireError(t, e, CodeInvalidParams, "source: ")
		require.Contains(t, e.Message, "(load)")
		// A chunk that raises, or returns something else than a module.
		e = c.callErr("plugin.call", map[string]any{"source": `error("no")`, "hook": "f"})
		requireError(t, e, CodeInvalidParams, "source: ")
		e = c.callErr("plugin.call", map[string]any{"source": `return 42`, "hook": "f"})
		requireError(t, e, CodeInvalidParams, "must return a table")
	})
	t.Run("inline hook that rejects its args", func(t *testing.T) {
		src := `function f(n) if type(n) ~= "number" then ptywright.invalid_params("f: want a number") end return Ok(n) end`
		e := c.callErr("plugin.call", map[string]any{"source": src, "hook": "f", "args": []any{"x"}})
		requireError(t, e, CodeInvalidParams, "f: want a number")
		var res struct {
			Ok int `json:"ok"`
		}
		c.do("plugin.call", map[string]any{"source": src, "hook": "f", "args": []any{7}}, &res)
		require.Equal(t, 7, res.Ok)
		// A plain Lua error in a hook is still the plugin's failure.
		e = c.callErr("plugin.call", map[string]any{"source": `function f() error("broken", 0) end`, "hook": "f"})
		requireError(t, e, CodeInternalError, "broken")
	})
	t.Run("program that cannot be run", func(t *testing.T) {
		plain := filepath.Join(dir, "not-executable")
		require.NoError(t, os.WriteFile(plain, []byte("#!/bin/sh\necho hi\n"), 0o644))
		garbage := filepath.Join(dir, "no-format")
		require.NoError(t, os.WriteFile(garbage, []byte{0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3}, 0o755))
		for _, tt := range []struct{ program, msg string }{
			{dir, "is a directory"},
			{plain, "permission denied"},
			{garbage, "exec format error"},
			{filepath.Join(dir, "missing"), "no such file"},
			{"no-such-program-anywhere", "not found"},
		} {
			e := c.callErr("session.create", map[string]any{"program": tt.program})
			requireError(t, e, CodeInvalidParams, tt.msg)
			e = c.callErr("adapter.start", map[string]any{"plugin": "echo", "program": tt.program})
			requireError(t, e, CodeInvalidParams, tt.msg)
		}
		var live adapterLiveResult
		c.do("adapter.live", nil, &live)
		require.Empty(t, live.Adapters, "a failed start leaves no adapter behind")
	})
	t.Run("adapter.start of a plugin that is not an adapter", func(t *testing.T) {
		for _, tt := range []struct{ plugin, kind string }{{"macro-one", "macro"}, {"matcher-one", "matcher"}} {
			for _, method := range []string{"adapter.start", "adapter.resume"} {
				e := c.callErr(method, map[string]any{"plugin": tt.plugin, "program": "/bin/sh"})
				requireError(t, e, CodeInvalidParams, `plugin: plugin "`+tt.plugin+`" is a `+tt.kind+` plugin`)
			}
		}
		var list adapterListResult
		c.do("adapter.list", nil, &list)
		names := make([]string, len(list.Plugins))
		for i, m := range list.Plugins {
			names[i] = m.Name
			require.Equal(t, manifest.KindAdapter, m.Kind)
		}
		require.Equal(t, []string{builtinEcho, "echo"}, names, "adapter.list lists only what adapter.start can instantiate")
		// They are still plugins: callable.
		var res struct {
			Ok int `json:"ok"`
		}
		c.do("plugin.call", map[string]any{"plugin": "macro-one", "hook": "run"}, &res)
		require.Equal(t, 1, res.Ok)
	})
}

// writePlugin writes a plugin of kind under dir/name and returns its
// manifest's path.
func writePlugin(t *testing.T, dir, name, kind, source string) string {
	t.Helper()
	pdir := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(pdir, 0o755))
	manifest := "name = \"" + name + "\"\nkind = \"" + kind + "\"\nversion = \"0.1.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\npermissions = []\n"
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "manifest.toml"), []byte(manifest), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pdir, "main.lua"), []byte(source), 0o644))
	return filepath.Join(pdir, "manifest.toml")
}

// TestRefusedIntentIsIntentRefused: an intent a built-in plugin declines on
// the screen as it is (approve with no dialog up) is -32006 with the
// plugin's reason, over a real socket; nothing is written and the adapter
// is unharmed.
func TestRefusedIntentIsIntentRefused(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, plugins.Close()) })
	srv := newServer(t, Options{Plugins: plugins})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "codex", "program": "/bin/sh", "args": []string{"-c", "cat"}})
	e := c.callErr("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "approve"})
	requireError(t, e, CodeIntentRefused, "approve: not possible in state")
	c.do("adapter.state", map[string]any{"adapter": a.Adapter}, nil)
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
}
