package ptywright

import (
	"context"
	"testing"
	"time"

	lua "github.com/Shopify/go-lua"
	"github.com/stretchr/testify/require"

	"ptywright/manifest"
)

const counterPlugin = `local M = {}
local n = 0
function M.count() n = n + 1 return {last_intent = tostring(n)} end
return M`

func counterRuntime(t *testing.T) *luaRuntime {
	t.Helper()
	m := manifest.Manifest{Name: "counter", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	rt, err := newLuaRuntime(context.Background(), m, []byte(counterPlugin), PluginLimits{})
	require.NoError(t, err)
	return rt
}

func count(t *testing.T, rt *luaRuntime) string {
	t.Helper()
	require.NoError(t, rt.ensure(context.Background()))
	var got string
	err := rt.callExport(context.Background(), "count", func(*lua.State) (int, error) { return 0, nil }, func(l *lua.State) error {
		plan, err := rt.decodePlan(l)
		if err == nil {
			got = *plan.LastIntent
		}
		return err
	})
	require.NoError(t, err)
	return got
}

// TestInterpreterFailuresReplaceTheState covers what no plugin can reach
// through the host API: a Go panic escaping go-lua's own recovery (a
// non-error value, which go-lua re-panics on) and a Go runtime error that
// go-lua recovers as if it were a Lua error. Both are typed errors, never
// crashes, and the next call runs on a fresh state.
func TestInterpreterFailuresReplaceTheState(t *testing.T) {
	tests := []struct {
		name  string
		panic func()
		want  string
	}{
		// go-lua's recovery asserts the value is an error and panics anew.
		{"non-error panic", func() { panic("internal invariant") }, "interpreter failure: interface conversion: string is not error"},
		{"runtime error", func() {
			var m map[string]int
			m["x"] = 1
		}, "interpreter failure: assignment to entry in nil map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := counterRuntime(t)
			require.Equal(t, "1", count(t, rt))
			require.Equal(t, "2", count(t, rt))
			err := rt.protected(context.Background(), "boom", func(*lua.State) error {
				tt.panic()
				return nil
			})
			var pe *PluginError
			require.ErrorAs(t, err, &pe)
			require.ErrorIs(t, err, ErrPluginRuntime)
			require.Equal(t, "counter", pe.Plugin)
			require.Equal(t, "boom", pe.Function)
			require.Contains(t, pe.Message, tt.want)
			require.True(t, rt.broken)
			require.Equal(t, "1", count(t, rt), "a fresh state after the failure")
		})
	}
}

func TestCaughtStackOverflowReplacesTheState(t *testing.T) {
	m := manifest.Manifest{Name: "deep", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	rt, err := newLuaRuntime(context.Background(), m, []byte(`local M = {}
local n = 0
function M.count() n = n + 1 return {last_intent = tostring(n)} end
function M.dive()
  local ok, e = pcall(function() local function f() return f() + 1 end return f() end)
  return {last_intent = tostring(ok) .. " " .. tostring(e)}
end
return M`), PluginLimits{Timeout: time.Minute}) // overflowing takes seconds under -race
	require.NoError(t, err)
	require.Equal(t, "1", count(t, rt))
	var got string
	err = rt.callExport(context.Background(), "dive", func(*lua.State) (int, error) { return 0, nil }, func(l *lua.State) error {
		plan, err := rt.decodePlan(l)
		if err == nil {
			got = *plan.LastIntent
		}
		return err
	})
	require.NoError(t, err, "the plugin caught the overflow itself")
	require.Contains(t, got, "false")
	require.Contains(t, got, "stack overflow")
	require.True(t, rt.broken, "go-lua keeps an oversized stack after an overflow")
	require.Equal(t, "1", count(t, rt))
}
