package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/luart"
	"ptywright/luahost"
	"ptywright/plugins"
)

// memoryLimits give a plugin a small memory budget and so much of
// everything else that only the memory budget can trip.
var memoryLimits = luahost.Limits{Instructions: 1 << 40, Timeout: 5 * time.Minute, Memory: 8 << 20}

// memoryBombs are the scripts that try to take the host's memory; each is
// a Lua body that runs inside a function. The same list runs against the
// JSON-RPC server under an address-space cap (cmd/ptywright).
var memoryBombs = []struct {
	name string
	body string
	is   error
	want string
}{
	{"concat doubling", `local s = 'xxxxxxxx' for i = 1, 40 do s = s .. s end`, luahost.ErrMemory, "memory budget exceeded (8 MiB)"},
	{"concat doubling in a closure", `local s = 'x' local function grow() s = s .. s .. s end for i = 1, 40 do grow() end`, luahost.ErrMemory, "memory budget exceeded"},
	{"string.rep kept", `local t = {} for i = 1, 1e6 do t[i] = string.rep('x', 1e6) end`, luahost.ErrMemory, "memory budget exceeded"},
	{"string.rep with separator kept", `local t = {} for i = 1, 1e6 do t[i] = ('x'):rep(1e5, ',') end`, luahost.ErrMemory, "memory budget exceeded"},
	{"table.concat of a growing table", `local t = {'xxxxxxxx'} for i = 1, 60 do t[#t + 1] = table.concat(t) end`, luahost.ErrMemory, "memory budget exceeded"},
	{"table growth", `local t = {} for i = 1, 1e9 do t[i] = i end`, luahost.ErrMemory, "memory budget exceeded"},
	{"hash growth", `local t = {} for i = 1, 1e9 do t[i + 0.5] = true end`, luahost.ErrMemory, "memory budget exceeded"},
	{"tables in a loop", `local t = {} for i = 1, 1e9 do t[i] = {i, i, i, i} end`, luahost.ErrMemory, "memory budget exceeded"},
	{"string.format doubling", `local s = 'xxxxxxxx' for i = 1, 40 do s = string.format('%s%s', s, s) end`, luahost.ErrMemory, "memory budget exceeded"},
	{"string.format huge width", `local s = string.format('%0999999999d', 1)`, luahost.ErrRuntime, "width or precision too long"},
	{"gsub amplification", `local s = ('x'):rep(1000):gsub('x', ('y'):rep(1e5))`, luahost.ErrMemory, "memory budget exceeded"},
	{"gsub capture amplification", `local s = ('x'):rep(1e5):gsub('.*', ('%0'):rep(1000))`, luahost.ErrMemory, "memory budget exceeded"},
	{"gsub function amplification", `local big = ('y'):rep(1e6) local s = ('x'):rep(1000):gsub('x', function() return big end)`, luahost.ErrMemory, "memory budget exceeded"},
	{"pcall swallowing the budget", `for i = 1, 100 do pcall(function() local s = 'x' for j = 1, 40 do s = s .. s end end) end`, luahost.ErrMemory, "memory budget exceeded"},
	{"closures in a loop", `local t = {} for i = 1, 1e9 do t[i] = function() return i end end`, luahost.ErrMemory, "memory budget exceeded"},
	{"deep recursion", `local function f(n) return f(n + 1) + 1 end f(1)`, luahost.ErrRuntime, "stack overflow"},
}

func TestLuaMemoryBombs(t *testing.T) {
	src := `local M = {}
local calls = 0
function M.bomb(params)
  calls = calls + 1
  %s
  return {}
end
function M.ping(params) calls = calls + 1 return {last_intent = "pong " .. calls} end
return M`
	for _, tt := range memoryBombs {
		t.Run(tt.name, func(t *testing.T) {
			ext := luaPlugin(t, strings.Replace(src, "%s", tt.body, 1), nil, memoryLimits)
			ctx := context.Background()
			for round := 1; round <= 2; round++ {
				_, err := ext.Plan(ctx, "bomb", nil)
				require.ErrorIs(t, err, tt.is)
				require.ErrorContains(t, err, tt.want)
				var pe *luahost.Error
				require.ErrorAs(t, err, &pe)
				require.Equal(t, "bomb", pe.Function)
				if tt.is == luahost.ErrMemory {
					require.ErrorIs(t, err, luahost.ErrBudget, "a memory budget error is a budget error")
				}

				plan, err := ext.Plan(ctx, "ping", nil)
				require.NoError(t, err, "the instance answers after a bomb")
				require.NotNil(t, plan.LastIntent)
				if tt.is == luahost.ErrMemory || strings.Contains(tt.want, "stack overflow") {
					require.Equal(t, "pong 1", *plan.LastIntent, "the state that went over its budget was replaced")
				} else {
					require.Equal(t, fmt.Sprintf("pong %d", 2*round), *plan.LastIntent, "the same state kept its module values")
				}
			}
		})
	}
}

// TestLuaMemoryBudgetCountsLiveMemoryOnly: garbage is not held against a
// plugin. Each call allocates fifty times its budget and keeps nothing.
func TestLuaMemoryBudgetCountsLiveMemoryOnly(t *testing.T) {
	ext := luaPlugin(t, probeSource(`
local n = 0
for i = 1, 50 do
  local s = 'x'
  for j = 1, 22 do s = s .. s end -- 4 MiB
  local t = {}
  for j = 1, 1000 do t[j] = {j} end
  n = n + #s
end
result = n`), nil, memoryLimits)
	for range 3 {
		got, err := run(t, ext)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(50*(4<<20)), got)
	}
}

// TestLuaMemoryBudgetSpansCalls: what a plugin keeps between calls counts,
// so a cache that grows on every call is stopped too.
func TestLuaMemoryBudgetSpansCalls(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
local cache = {}
function M.grow(params)
  cache[#cache + 1] = string.rep('x', 1048576)
  return {last_intent = tostring(#cache)}
end
return M`, nil, memoryLimits)
	ctx := context.Background()
	var err error
	calls := 0
	for ; calls < 100; calls++ {
		if _, err = ext.Plan(ctx, "grow", nil); err != nil {
			break
		}
	}
	require.ErrorIs(t, err, luahost.ErrMemory)
	require.Greater(t, calls, 3, "a state well under its budget keeps growing")
	require.Less(t, calls, 9, "an 8 MiB budget holds no more than 8 strings of 1 MiB")
	plan, err := ext.Plan(ctx, "grow", nil)
	require.NoError(t, err)
	require.Equal(t, "1", *plan.LastIntent, "a fresh state starts with an empty cache")
}

// TestLuaMemoryBudgetDefaults: the zero value means the default memory
// budget (64 MiB), and no plugin gets more than the maximum (1 GiB).
func TestLuaMemoryBudgetDefaults(t *testing.T) {
	ext := luaPlugin(t, probeSource(`local s = 'x' for i = 1, 40 do s = s .. s end`), nil, luahost.Limits{Instructions: 1 << 40, Timeout: time.Minute})
	_, err := run(t, ext)
	require.ErrorIs(t, err, luahost.ErrMemory)
	require.ErrorContains(t, err, "memory budget exceeded (64 MiB)")

	for _, tt := range []struct{ set, want int64 }{{0, luart.DefaultMemory}, {-1, luart.DefaultMemory}, {5 << 20, 5 << 20}, {1 << 40, luart.MaxMemory}} {
		plugins, err := plugins.New(plugins.Options{NoBuiltins: true, Limits: luahost.Limits{Memory: tt.set}})
		require.NoError(t, err)
		require.Equal(t, tt.want, plugins.Capabilities().Limits.MemoryBytes, "Memory: %d", tt.set)
		require.NoError(t, plugins.Close())
	}
}

// TestLuaMemoryBudgetInHooksAndInline: hooks run without an instruction
// budget, but never without a memory budget.
func TestLuaMemoryBudgetInHooksAndInline(t *testing.T) {
	plugins, err := plugins.New(plugins.Options{NoBuiltins: true, Limits: memoryLimits})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, plugins.Close()) })
	src := `function bomb() local s = 'x' for i = 1, 40 do s = s .. s end return #s end
function ping() return 'pong' end`
	_, err = plugins.CallInline(context.Background(), src, "bomb", nil, luahost.HookOptions{Timeout: time.Minute})
	require.ErrorIs(t, err, luahost.ErrMemory)
	require.ErrorContains(t, err, "memory budget exceeded (8 MiB)")
	res, err := plugins.CallInline(context.Background(), src, "ping", nil, luahost.HookOptions{Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, json.RawMessage(`"pong"`), res.Ok)
}

// TestLuaMemoryBudgetHostHelpers: what the host builds in Go for a plugin
// (a conversion to JSON, a list of regular expression matches) is bounded
// by the budget too.
func TestLuaMemoryBudgetHostHelpers(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"json of a shared table", `local t = {('x'):rep(1000)} for i = 1, 40 do t = {t, t} end result = ptywright.json_encode(t)`},
		{"re.gmatch of the empty expression", `local n = 0 for m in ptywright.re.gmatch(('x'):rep(4e6), '') do n = n + 1 end result = n`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ext := luaPlugin(t, probeSource(tt.body), nil, memoryLimits)
			_, err := run(t, ext)
			require.ErrorIs(t, err, luahost.ErrMemory)
			require.ErrorContains(t, err, "memory budget exceeded (8 MiB)")
		})
	}
	// A hook's result is converted under the budget as well.
	plugins, err := plugins.New(plugins.Options{NoBuiltins: true, Limits: memoryLimits})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, plugins.Close()) })
	_, err = plugins.CallInline(context.Background(), `function dag() local t = {'x'} for i = 1, 40 do t = {t, t} end return t end`, "dag", nil, luahost.HookOptions{Timeout: time.Minute})
	require.ErrorIs(t, err, luahost.ErrMemory)
}
