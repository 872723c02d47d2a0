package tuitest

import (
	"path/filepath"
	"sync"
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

// shared is a test package's one registry of the built-in plugins (see
// SharedPlugins).
var shared struct {
	once sync.Once
	reg  *plugins.Registry
	err  error
}

// SharedPlugins returns the test package's one registry of the built-in
// plugins: each extension it hands out is a fresh Lua instance, so tests
// share the registry's set-up cost and nothing else. A package that uses
// it closes it with MainAfter(m, CloseSharedPlugins).
func SharedPlugins(tb testing.TB) *plugins.Registry {
	tb.Helper()
	shared.once.Do(func() { shared.reg, shared.err = plugins.New(plugins.Options{}) })
	if shared.err != nil {
		tb.Fatalf("plugins.New: %v", shared.err)
	}
	return shared.reg
}

// CloseSharedPlugins closes the shared registry, if a test made it.
func CloseSharedPlugins() {
	if shared.reg != nil {
		_ = shared.reg.Close() // Best effort: the tests are over.
	}
}
