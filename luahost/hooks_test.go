package luahost_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

const hookPlugin = `local M = {}
local calls = 0
function M.add(a, b) return Ok(a + b) end
function M.fail(msg) return Err(msg) end
function M.fail_table() return Err({code = 7}) end
function M.raw(x) return {echo = x, list = {1, 2}} end
function M.nothing() end
function M.ok_nil() return Ok(nil) end
function M.chatty(name) print("hello", name) print("bye") return Ok(name) end
function M.count() calls = calls + 1 return calls end
function M.seen() return calls > 0 end
function M.spin() while true do end end
function M.raise() error("hook exploded") end
function M.func() return function() end end
function M.nested() return {inner = Ok(1)} end
function M.argc(...) return select("#", ...) end
function M.close() end
return M`

func TestHookCalls(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "hooks", "", hookPlugin))
	require.NoError(t, err)
	ctx := context.Background()
	str := func(s string) *string { return &s }

	tests := []struct {
		hook, args string
		want       luahost.HookResult
		wire       string
	}{
		{"add", `[3, 4]`, luahost.HookResult{Ok: json.RawMessage(`7`)}, `{"ok":7}`},
		{"fail", `["no way"]`, luahost.HookResult{Err: str("no way")}, `{"err":"no way"}`},
		{"fail_table", ``, luahost.HookResult{Err: str(`{"code":7}`)}, `{"err":"{\"code\":7}"}`},
		{"raw", `["x"]`, luahost.HookResult{Ok: json.RawMessage(`{"echo":"x","list":[1,2]}`)}, `{"ok":{"echo":"x","list":[1,2]}}`},
		{"nothing", `null`, luahost.HookResult{Ok: json.RawMessage(`null`)}, `{"ok":null}`},
		{"ok_nil", `[]`, luahost.HookResult{Ok: json.RawMessage(`null`)}, `{"ok":null}`},
		{"chatty", `["you"]`, luahost.HookResult{Ok: json.RawMessage(`"you"`), Output: "hello\tyou\nbye\n"}, `{"ok":"you","output":"hello\tyou\nbye\n"}`},
		{"nested", ``, luahost.HookResult{Ok: json.RawMessage(`{"inner":{"ok":1}}`)}, `{"ok":{"inner":{"ok":1}}}`},
		{"argc", `[1, null, {"a": []}]`, luahost.HookResult{Ok: json.RawMessage(`3`)}, `{"ok":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.hook, func(t *testing.T) {
			got, err := p.Call(ctx, "hooks", tt.hook, json.RawMessage(tt.args), luahost.HookOptions{})
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			wire, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, tt.wire, string(wire))
			var back luahost.HookResult
			require.NoError(t, json.Unmarshal(wire, &back))
			require.Equal(t, got, back)
		})
	}

	// The hook instance keeps module state between calls.
	for want := 1; want <= 3; want++ {
		got, err := p.Call(ctx, "hooks", "count", nil, luahost.HookOptions{})
		require.NoError(t, err)
		require.JSONEq(t, string(rune('0'+want)), string(got.Ok))
	}
}

func TestHookCallErrors(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "hooks", "", hookPlugin))
	require.NoError(t, err)
	ctx := context.Background()
	tests := []struct {
		plugin, hook, args string
		is                 error
		want               string
	}{
		{"nope", "add", "", plugins.ErrNotFound, `"nope"`},
		{"hooks", "missing", "", ptywright.ErrInvalidParams, `plugin hooks exports no function "missing" (exports: add, argc, chatty, close, count, fail`},
		{"hooks", "not a name", "", ptywright.ErrInvalidParams, "is not a Lua function name"},
		{"hooks", "close", "", ptywright.ErrInvalidParams, "close is the plugin's shutdown hook"},
		{"hooks", "add", `{"a": 1}`, ptywright.ErrInvalidParams, "args: want a JSON array of positional arguments, got an object"},
		{"hooks", "add", `[1,`, ptywright.ErrInvalidParams, "args: "},
		{"hooks", "raise", "", luahost.ErrRuntime, "hook exploded"},
		{"hooks", "func", "", luahost.ErrRuntime, "a Lua function has no JSON form"},
	}
	for _, tt := range tests {
		_, err := p.Call(ctx, tt.plugin, tt.hook, json.RawMessage(tt.args), luahost.HookOptions{})
		require.ErrorIs(t, err, tt.is, tt.hook)
		require.ErrorContains(t, err, tt.want)
	}
	_, err = p.Call(ctx, "hooks", "add", nil, luahost.HookOptions{Timeout: -time.Second})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
}

// TestHookTimeout: a hook's instruction budget is its own
// (DefaultHookInstructions, not tuitest.TestLimits', which would stop spin at once),
// so its timeout stops it, as a timeout.
func TestHookTimeout(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "hooks", "", hookPlugin))
	require.NoError(t, err)
	_, err = p.Call(context.Background(), "hooks", "spin", nil, luahost.HookOptions{Timeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.NotErrorIs(t, err, luahost.ErrBudget)
	require.ErrorContains(t, err, `plugin hooks: hook "spin" timed out after 100ms`)
	var pe *luahost.Error
	require.True(t, errors.As(err, &pe))
	require.Equal(t, "spin", pe.Function)

	// The caller's own deadline is reported as it is.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Call(ctx, "hooks", "spin", nil, luahost.HookOptions{})
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.NotContains(t, err.Error(), "timed out after")

	// The state survives: the next call runs.
	got, err := p.Call(context.Background(), "hooks", "add", json.RawMessage(`[1, 1]`), luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, "2", string(got.Ok))
}

// A hook has an instruction budget like every plugin call: a loop that
// allocates nothing ends with a budget error, not only at its timeout.
func TestHookInstructionBudget(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "hooks", "", hookPlugin))
	require.NoError(t, err)
	start := time.Now()
	_, err = p.Call(context.Background(), "hooks", "spin", nil, luahost.HookOptions{Timeout: 30 * time.Second, Instructions: 1_000_000})
	require.ErrorIs(t, err, luahost.ErrBudget)
	require.NotErrorIs(t, err, ptywright.ErrTimeout)
	require.ErrorContains(t, err, "instruction budget exceeded (1000000 instructions)")
	require.Less(t, time.Since(start), 25*time.Second, "the budget, not the timeout, ended it")

	// The state survives: the next call runs, with the default budget.
	got, err := p.Call(context.Background(), "hooks", "add", json.RawMessage(`[2, 3]`), luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, "5", string(got.Ok))
}

func TestHookInstanceIsSeparate(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "hooks", "", hookPlugin))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = p.Call(ctx, "hooks", "count", nil, luahost.HookOptions{})
	require.NoError(t, err)
	got, err := p.Call(ctx, "hooks", "seen", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, "true", string(got.Ok))
	// The instance deciding lua matchers has its own module state.
	out, err := p.EvalPredicate(ctx, "hooks", "seen", contract.PredicateInput{})
	require.NoError(t, err)
	require.False(t, out.Matched)
}

func TestHookInline(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	ctx := context.Background()
	tests := []struct {
		name, source, hook, args, want string
	}{
		{"global function", `function add(a, b) return Ok(a + b) end`, "add", `[3, 4]`, `{"ok":7}`},
		{"module", `local M = {} function M.greet(n) return "hello " .. n end return M`, "greet", `["codetether"]`, `{"ok":"hello codetether"}`},
		{"err", `function check(v) if v > 0 then return Ok(true) end return Err("not positive") end`, "check", `[-1]`, `{"err":"not positive"}`},
		{"print", `function p() print("x") end`, "p", ``, `{"ok":null,"output":"x\n"}`},
		// No permissions beyond pure Lua: no actions, matchers or SDK.
		{"sandbox", `function probe()
  return {action = ptywright.action == nil, matcher = ptywright.matcher == nil, emit = ptywright.emit == nil,
    on = ptywright.on == nil, cleanup = ptywright.on_cleanup == nil, log = ptywright.log == nil,
    io = io == nil, os = os == nil, load = load == nil, json = ptywright.json_decode("[1]")[1]}
end`, "probe", ``, `{"ok":{"action":true,"matcher":true,"emit":true,"on":true,"cleanup":true,"log":true,"io":true,"os":true,"load":true,"json":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.CallInline(ctx, tt.source, tt.hook, json.RawMessage(tt.args), luahost.HookOptions{})
			require.NoError(t, err)
			wire, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(wire))
		})
	}

	_, err := p.CallInline(ctx, "  ", "x", nil, luahost.HookOptions{})
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, err = p.CallInline(ctx, "function x( end", "x", nil, luahost.HookOptions{})
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "plugin inline: (load)")
	_, err = p.CallInline(ctx, "return 5", "x", nil, luahost.HookOptions{})
	require.ErrorContains(t, err, "must return a table of functions")
	_, err = p.CallInline(ctx, "function x() ptywright.emit('y') end", "x", nil, luahost.HookOptions{})
	require.ErrorContains(t, err, "attempt to call a nil value")
	_, err = p.CallInline(ctx, "function x() while true do end end", "x", nil, luahost.HookOptions{Timeout: 50 * time.Millisecond})
	require.ErrorIs(t, err, ptywright.ErrTimeout)
}

func TestManifestDeclaredHooksMustExist(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	_, err := p.Load(tuitest.WritePlugin(t, "decl", "hooks = [\"add\", \"sub\"]\n", `return {add = function() end}`))
	require.ErrorIs(t, err, manifest.ErrInvalid)
	var me *manifest.Error
	require.True(t, errors.As(err, &me))
	require.Equal(t, "hooks[1]", me.Field)
	require.ErrorContains(t, err, `hook "sub" is declared but the plugin exports no such function`)
	_, err = p.Load(tuitest.WritePlugin(t, "decl", "intents = [\"go\"]\n", `return {}`))
	require.ErrorContains(t, err, `field "intents[0]": intent "go" is declared but the plugin exports no such function`)
	_, err = p.Load(tuitest.WritePlugin(t, "decl", "hooks = [\"add\"]\nintents = [\"go\"]\n", `return {add = function() end, go = function() end}`))
	require.NoError(t, err)
	// Two loaded plugins claiming one name: the second fails fast.
	_, err = p.Load(tuitest.WritePlugin(t, "decl", "", `return {}`))
	require.ErrorIs(t, err, plugins.ErrExists)
}

func TestPluginsCloseRunsInstanceCleanups(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits, Logger: logger})
	require.NoError(t, err)
	_, err = p.Load(tuitest.WritePlugin(t, "svc", "", `local M = {}
ptywright.on_cleanup(function() ptywright.log.info("svc cleanup") end)
function M.ping() return "pong" end
function M.close() ptywright.log.info("svc close") end
return M`))
	require.NoError(t, err)
	_, err = p.Call(context.Background(), "svc", "ping", nil, luahost.HookOptions{})
	require.NoError(t, err)
	// Two instances exist now: the probe kept for predicates, and the hook
	// instance. Both shut down, once.
	require.NoError(t, p.Close())
	require.Len(t, logs.Matching(t, "[svc] svc cleanup"), 2)
	require.Len(t, logs.Matching(t, "[svc] svc close"), 2)
	require.NoError(t, p.Close())
	require.Len(t, logs.Matching(t, "[svc] svc cleanup"), 2)
}

// TestHookNumbersAreNeverAltered: an integer a Lua number cannot hold
// exactly is refused, naming the argument, rather than rounded; a literal
// written as a double comes in whatever its magnitude; every number makes
// the round trip unchanged, in both directions, and a Lua number beyond
// ±2^53 goes out as the double it is, in floating form.
func TestHookNumbersAreNeverAltered(t *testing.T) {
	p := tuitest.EchoPlugins(t, plugins.Options{Limits: tuitest.TestLimits})
	ctx := context.Background()
	const echo = `function echo(...) return {...} end
function big() return 2^53 + 2 end
function nested() return {deep = {-2^60}} end`
	for _, args := range []string{`[9007199254740992, -9007199254740992, 1.5, 0.1, 12345678901234]`, `[{"n": 9007199254740991}]`,
		`[0.1, -2.5, 1e-7, 6.02214076e+23, 1.7976931348623157e+308]`, `[1e300, -4.5e20, 9007199254740993.0]`} {
		got, err := p.CallInline(ctx, echo, "echo", json.RawMessage(args), luahost.HookOptions{})
		require.NoError(t, err, args)
		require.JSONEq(t, args, string(got.Ok))
	}
	for _, tt := range []struct{ args, path, why string }{
		{`[9007199254740993]`, "args[0]", "beyond ±2^53"},
		{`[1, 9223372036854775807]`, "args[1]", "beyond ±2^53"},
		{`[{"a": [1, -9007199254740993]}]`, "args[0].a[1]", "beyond ±2^53"},
		{`[1e999]`, "args[0]", "beyond the range of a double"},
	} {
		_, err := p.CallInline(ctx, echo, "echo", json.RawMessage(tt.args), luahost.HookOptions{})
		require.ErrorIs(t, err, ptywright.ErrInvalidParams, tt.args)
		require.ErrorContains(t, err, tt.path+": number ")
		require.ErrorContains(t, err, tt.why)
	}
	got, err := p.CallInline(ctx, echo, "big", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.Equal(t, "9.007199254740994e+15", string(got.Ok), "a double beyond ±2^53 goes out in floating form")
	back, err := p.CallInline(ctx, echo, "echo", json.RawMessage("["+string(got.Ok)+"]"), luahost.HookOptions{})
	require.NoError(t, err, "and comes back in unaltered")
	require.JSONEq(t, "["+string(got.Ok)+"]", string(back.Ok))
	got, err = p.CallInline(ctx, echo, "nested", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, `{"deep":[-1.152921504606847e+18]}`, string(got.Ok))
	// json_decode keeps the same promise inside Lua.
	_, err = p.CallInline(ctx, `function d() return ptywright.json_decode("[9007199254740993]") end`, "d", nil, luahost.HookOptions{})
	require.ErrorContains(t, err, "beyond ±2^53")
}
