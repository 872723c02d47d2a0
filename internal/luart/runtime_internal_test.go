package luart

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	lua "ptywright/internal/golua"
	"ptywright/manifest"
)

const counterPlugin = `local M = {}
local n = 0
function M.count() n = n + 1 return {last_intent = tostring(n)} end
return M`

func counterRuntime(t *testing.T) *Runtime {
	t.Helper()
	m := manifest.Manifest{Name: "counter", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	rt, err := New(context.Background(), Config{Manifest: m, Source: []byte(counterPlugin), Host: testHost})
	require.NoError(t, err)
	return rt
}

// testHost is a host without the ptywright package: plain sentinels.
var testHost = &Host{
	Errors:        Classes{Timeout: errors.New("timeout"), Cancelled: errors.New("cancelled"), InvalidParams: errors.New("invalid params")},
	Version:       "test",
	ParseKey:      func(string) error { return nil },
	ParseSignal:   func(string) error { return nil },
	CheckSize:     func(int, int) (int, error) { return 0, nil },
	MaxEventDepth: 8,
	EventTime:     func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
}

// lastIntent reads {last_intent = "..."}.
func lastIntent(t *testing.T, v Value) string {
	t.Helper()
	s, ok := v.Field("last_intent").String()
	require.True(t, ok, "last_intent is %s", v.Field("last_intent").TypeName())
	return s
}

func count(t *testing.T, rt *Runtime) string {
	t.Helper()
	require.NoError(t, rt.ensure(context.Background()))
	var got string
	err := rt.Call(context.Background(), "count", nil, func(v Value) error {
		got = lastIntent(t, v)
		return nil
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
			//lint:ignore SA5000 the test provokes a Go runtime error on purpose
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
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.ErrorIs(t, err, ErrRuntime)
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
	rt, err := New(context.Background(), Config{Manifest: m, Host: testHost, Limits: Limits{Timeout: time.Minute}, Source: []byte(`local M = {}
local n = 0
function M.count() n = n + 1 return {last_intent = tostring(n)} end
function M.dive()
  local ok, e = pcall(function() local function f() return f() + 1 end return f() end)
  return {last_intent = tostring(ok) .. " " .. tostring(e)}
end
return M`)}) // overflowing takes seconds under -race
	require.NoError(t, err)
	require.Equal(t, "1", count(t, rt))
	var got string
	err = rt.Call(context.Background(), "dive", nil, func(v Value) error {
		got = lastIntent(t, v)
		return nil
	})
	require.NoError(t, err, "the plugin caught the overflow itself")
	require.Contains(t, got, "false")
	require.Contains(t, got, "stack overflow")
	require.True(t, rt.broken, "go-lua keeps an oversized stack after an overflow")
	require.Equal(t, "1", count(t, rt))
}
