package tuitest

import (
	"path/filepath"
	"testing"
	"time"

	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

// TestLimits keep runaway plugin tests short: about a millisecond of Lua.
// The instruction budget is what trips; the clock is only a backstop.
var TestLimits = luahost.Limits{Instructions: 200_000, Timeout: 30 * time.Second}

// EchoPlugins returns a registry with the repository's echo test plugin
// (testdata/plugins/echo) loaded, closed with the test.
func EchoPlugins(tb testing.TB, opts plugins.Options) *plugins.Registry {
	tb.Helper()
	p, err := plugins.New(opts)
	if err != nil {
		tb.Fatalf("plugins.New: %v", err)
	}
	tb.Cleanup(func() {
		if err := p.Close(); err != nil {
			tb.Errorf("close plugins: %v", err)
		}
	})
	if _, err := p.Load(filepath.Join(RepoRoot(tb), "testdata", "plugins", "echo", "manifest.toml")); err != nil {
		tb.Fatalf("load echo: %v", err)
	}
	return p
}

// SDKManifest is a minimal Lua adapter manifest named name with perms.
func SDKManifest(name string, perms ...manifest.Permission) manifest.Manifest {
	return manifest.Manifest{Name: name, Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua", Permissions: perms}
}
