package plugins_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

// builtinFS is a built-in plugin directory as go:embed would hold it.
func builtinFS(name string) fstest.MapFS {
	return fstest.MapFS{
		"plugins/" + name + "/manifest.toml": {Data: []byte("name = \"" + name + "\"\nkind = \"adapter\"\nversion = \"1.0.0\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\npermissions = [\"screen.read\"]\n")},
		"plugins/" + name + "/main.lua":      {Data: []byte(`local M = {} function M.classify(ctx) return {state = "builtin"} end return M`)},
		"plugins/README.md":                  {Data: []byte("not a plugin")},
		"plugins/empty/notes.txt":            {Data: []byte("a directory without a manifest")},
	}
}

func names(ms []manifest.Manifest) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// TestPluginsEmbedsTheBuiltins: every plugins/<name>/ holding a
// manifest.toml is registered as a built-in, and only those.
func TestPluginsEmbedsTheBuiltins(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	want := []string{}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "manifest.toml")); e.IsDir() && err == nil {
			want = append(want, e.Name())
		}
	}
	require.NotEmpty(t, want)
	p, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	require.Equal(t, want, names(p.Builtins()))
	require.Equal(t, want, names(p.Manifests()))
	for _, name := range want {
		require.True(t, p.IsBuiltin(name), name)
		require.ErrorIs(t, p.Unload(name), plugins.ErrBuiltin)
	}
	none, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, none.Close()) }()
	require.Empty(t, none.Builtins())
}

func TestPluginsRegistry(t *testing.T) {
	p, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	require.Empty(t, p.Builtins(), "NoBuiltins leaves the embedded plugins out")

	got, err := p.RegisterBuiltinFS(builtinFS("demo"), "plugins")
	require.NoError(t, err)
	require.Equal(t, []string{"demo"}, names(got))

	m, err := p.Load("../testdata/plugins/echo/manifest.toml")
	require.NoError(t, err)
	require.Equal(t, "echo", m.Name)
	require.Equal(t, []string{"demo", "echo"}, names(p.Manifests()))
	require.Equal(t, []string{"demo"}, names(p.Builtins()))
	require.True(t, p.IsBuiltin("demo"))
	require.False(t, p.IsBuiltin("echo"))

	m, err = p.Manifest("echo")
	require.NoError(t, err)
	require.Equal(t, "/bin/sh", m.DefaultTarget.Program)
	m.Permissions[0] = "tampered"
	again, err := p.Manifest("echo")
	require.NoError(t, err)
	require.Equal(t, manifest.PermissionSessionSpawn, again.Permissions[0], "manifests are handed out as copies")

	// Collisions: with a loaded plugin, and with a built-in.
	_, err = p.Load("../testdata/plugins/echo/manifest.toml")
	require.ErrorIs(t, err, plugins.ErrExists)
	require.NotErrorIs(t, err, plugins.ErrBuiltin)
	_, err = p.Load(tuitest.WritePlugin(t, "demo", "", "return {}"))
	require.ErrorIs(t, err, plugins.ErrExists)
	require.ErrorIs(t, err, plugins.ErrBuiltin)
	_, err = p.RegisterBuiltinFS(builtinFS("echo"), "plugins")
	require.ErrorIs(t, err, plugins.ErrExists)

	// Unloading.
	require.ErrorIs(t, p.Unload("demo"), plugins.ErrBuiltin)
	require.NoError(t, p.Unload("echo"))
	require.ErrorIs(t, p.Unload("echo"), plugins.ErrNotFound)
	_, err = p.Manifest("echo")
	require.ErrorIs(t, err, plugins.ErrNotFound)
	_, err = p.NewExtension("echo")
	require.ErrorIs(t, err, plugins.ErrNotFound)
	_, err = p.EvalPredicate(context.Background(), "echo", "has_text", contract.PredicateInput{})
	require.ErrorIs(t, err, plugins.ErrNotFound)
	_, err = p.Describe(context.Background(), "echo")
	require.ErrorIs(t, err, plugins.ErrNotFound)

	// Once unloaded, the name is free again.
	_, err = p.Load("../testdata/plugins/echo/manifest.toml")
	require.NoError(t, err)
}

func TestPluginsLoadRejects(t *testing.T) {
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits, NoBuiltins: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()

	// An entrypoint outside the manifest's directory (LoadManifestFile's
	// checks, end to end).
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "evil.lua"), []byte("return {}"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "plugin"), 0o700))
	mpath := filepath.Join(dir, "plugin", "manifest.toml")
	require.NoError(t, os.WriteFile(mpath, []byte("name = \"evil\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"../evil.lua\"\npermissions = []\n"), 0o600))
	_, err = p.Load(mpath)
	require.ErrorIs(t, err, manifest.ErrPathEscape)
	require.NoError(t, os.Symlink(filepath.Join(dir, "evil.lua"), filepath.Join(dir, "plugin", "main.lua")))
	require.NoError(t, os.WriteFile(mpath, []byte("name = \"evil\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\npermissions = []\n"), 0o600))
	_, err = p.Load(mpath)
	require.ErrorIs(t, err, manifest.ErrPathEscape)

	// Source that does not load is refused at Load, not at first use.
	_, err = p.Load(tuitest.WritePlugin(t, "broken", "", "local M = {"))
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "plugin broken: (load): broken/main.lua:1:")
	_, err = p.Load(tuitest.WritePlugin(t, "spin", "", "while true do end"))
	require.ErrorIs(t, err, luahost.ErrBudget)
	_, err = p.Load(filepath.Join(t.TempDir(), "missing.toml"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Empty(t, p.Manifests())

	// Built-in directories are checked the same way.
	fsys := builtinFS("demo")
	fsys["plugins/demo/manifest.toml"].Data = []byte("name = \"demo\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"../escape.lua\"\npermissions = []\n")
	_, err = p.RegisterBuiltinFS(fsys, "plugins")
	require.ErrorIs(t, err, manifest.ErrPathEscape)
}

// rememberSource keeps module-level state an intent sets and a predicate
// reads.
const rememberSource = `local M = {}
local remembered = nil
function M.remember(params) remembered = params.value return {last_intent = "remembered"} end
function M.recall(params) return {last_intent = tostring(remembered)} end
function M.remembered(input) return {matched = remembered ~= nil, evidence = tostring(remembered)} end
function M.spin(input) while true do end end
function M.is_ready(input) return input.screen:find("ready", 1, true) ~= nil end
function M.says_nothing(input) return nil end
function M.bad(input) return "yes" end
function M.echo_params(input) return {matched = true, evidence = input.params, capture = input.params.want} end
return M`

func TestPluginsPredicatesUseTheirOwnInstances(t *testing.T) {
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	_, err = p.Load(tuitest.WritePlugin(t, "memo", "", rememberSource))
	require.NoError(t, err)
	ctx := context.Background()

	adapter, err := p.NewExtension("memo")
	require.NoError(t, err)
	defer func() { require.NoError(t, adapter.Close()) }()
	plan, err := adapter.Plan(ctx, "remember", json.RawMessage(`{"value":"secret"}`))
	require.NoError(t, err)
	require.Equal(t, "remembered", *plan.LastIntent)
	plan, err = adapter.Plan(ctx, "recall", nil)
	require.NoError(t, err)
	require.Equal(t, "secret", *plan.LastIntent, "an adapter keeps its module state")

	out, err := p.EvalPredicate(ctx, "memo", "remembered", contract.PredicateInput{})
	require.NoError(t, err)
	require.False(t, out.Matched, "the predicate instance never saw the adapter's intent")
	require.Equal(t, "nil", out.Evidence)

	other, err := p.NewExtension("memo")
	require.NoError(t, err)
	defer func() { require.NoError(t, other.Close()) }()
	plan, err = other.Plan(ctx, "recall", nil)
	require.NoError(t, err)
	require.Equal(t, "nil", *plan.LastIntent, "each adapter has its own instance")
}

func TestPluginsPredicateResults(t *testing.T) {
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	_, err = p.Load(tuitest.WritePlugin(t, "memo", "", rememberSource))
	require.NoError(t, err)
	ctx := context.Background()
	in := contract.PredicateInput{Screen: "all ready", Sequence: 3}

	out, err := p.EvalPredicate(ctx, "memo", "is_ready", in)
	require.NoError(t, err)
	require.Equal(t, contract.PredicateOutcome{Matched: true}, out)
	out, err = p.EvalPredicate(ctx, "memo", "says_nothing", in)
	require.NoError(t, err)
	require.False(t, out.Matched)

	in.Params = json.RawMessage(`{"want":"x","n":[1,2]}`)
	out, err = p.EvalPredicate(ctx, "memo", "echo_params", in)
	require.NoError(t, err)
	require.True(t, out.Matched)
	require.Equal(t, map[string]any{"want": "x", "n": []any{int64(1), int64(2)}}, out.Evidence)
	require.Equal(t, "x", *out.Capture)

	_, err = p.EvalPredicate(ctx, "memo", "bad", in)
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "predicate returned string, want a boolean or {matched, evidence?, capture?}")
	_, err = p.EvalPredicate(ctx, "memo", "nope", in)
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	_, err = p.EvalPredicate(ctx, "ghost", "x", in)
	require.ErrorIs(t, err, plugins.ErrNotFound)

	// A runaway predicate is stopped by the registry's budget, and the
	// instance answers the next call.
	_, err = p.EvalPredicate(ctx, "memo", "spin", in)
	require.ErrorIs(t, err, luahost.ErrBudget)
	out, err = p.EvalPredicate(ctx, "memo", "is_ready", in)
	require.NoError(t, err)
	require.True(t, out.Matched)

	// Concurrent waits share the instance safely.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				out, err := p.EvalPredicate(ctx, "memo", "is_ready", in)
				if err != nil || !out.Matched {
					t.Errorf("concurrent predicate: %v %v", out, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestPluginsCapabilities(t *testing.T) {
	p, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	_, err = p.RegisterBuiltinFS(builtinFS("demo"), "plugins")
	require.NoError(t, err)
	_, err = p.Load("../testdata/plugins/echo/manifest.toml")
	require.NoError(t, err)

	raw, err := json.Marshal(p.Capabilities())
	require.NoError(t, err)
	var caps map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &caps))
	require.JSONEq(t, `true`, string(caps["embedded_lua"]))
	require.JSONEq(t, `["lua"]`, string(caps["runtimes"]))
	require.JSONEq(t, `["adapter","macro","matcher"]`, string(caps["kinds"]))
	require.JSONEq(t, `["session.spawn","session.kill","session.resize","screen.read","transcript.read","input.write","matcher.wait"]`, string(caps["permissions"]))
	require.JSONEq(t, `{"instructions":5000000,"timeout_ms":5000,"max_string_bytes":16777216,"memory_bytes":67108864}`, string(caps["limits"]))
	var builtins []manifest.Manifest
	require.NoError(t, json.Unmarshal(caps["builtin_plugins"], &builtins))
	require.Equal(t, []string{"demo"}, names(builtins), "only built-ins, not loaded plugins")
}

func TestPluginsRegisterBuiltin(t *testing.T) {
	p, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	m := manifest.Manifest{Name: "inline", Kind: manifest.KindMatcher, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	require.NoError(t, p.RegisterBuiltin(m, []byte(`return {always = function() return true end}`)))
	require.ErrorIs(t, p.RegisterBuiltin(m, []byte(`return {}`)), plugins.ErrExists)
	out, err := p.EvalPredicate(context.Background(), "inline", "always", contract.PredicateInput{})
	require.NoError(t, err)
	require.True(t, out.Matched)
	m.Version = ""
	m.Name = "other"
	require.ErrorIs(t, p.RegisterBuiltin(m, []byte(`return {}`)), manifest.ErrInvalid)
}

func TestPluginsEmbedsClaudeCode(t *testing.T) {
	p, err := plugins.New(plugins.Options{})
	require.NoError(t, err)
	defer func() { require.NoError(t, p.Close()) }()
	require.Contains(t, names(p.Builtins()), "claude-code")
	require.True(t, p.IsBuiltin("claude-code"))
}
