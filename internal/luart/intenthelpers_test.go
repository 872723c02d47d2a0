package luart

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/manifest"
)

// intentPlugin calls the intent helpers from exports the tests call.
const intentPlugin = `local M = {}
local action = ptywright.action
function M.key_name(s)
  local k, folded = action.key_name(s)
  return {v = k, folded = folded}
end
function M.select(from, to)
  local keys = {}
  for i, a in ipairs(action.select(from, to)) do keys[i] = a.type .. ":" .. a.value end
  return {v = table.concat(keys, " ")}
end
function M.require_state(state) ptywright.require_state("approve", state, {"waiting_for_permission", "waiting_for_trust"}) return {v = "ok"} end
return M`

func intentRuntime(t *testing.T) *Runtime {
	t.Helper()
	known := []string{"enter", "escape", "tab", "shift_tab", "backspace", "delete", "up", "down", "page_up", "page_down", "insert", "ctrl_c", "alt_left"}
	host := *testHost
	host.ParseKey = func(name string) error {
		if slices.Contains(known, name) {
			return nil
		}
		return errors.New("unknown key")
	}
	host.Errors.Refused = errors.New("refused")
	m := manifest.Manifest{Name: "intents", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite}}
	rt, err := New(context.Background(), Config{Manifest: m, Host: &host, Source: []byte(intentPlugin)})
	require.NoError(t, err)
	t.Cleanup(rt.Close)
	return rt
}

func TestActionKeyName(t *testing.T) {
	rt := intentRuntime(t)
	for in, want := range map[string]any{
		"Enter": "enter", "esc": "escape", "Esc": "escape", "return": "enter", "Shift-Tab": "shift_tab", "shift+tab": "shift_tab",
		"backtab": "shift_tab", "PgUp": "page_up", "pgdn": "page_down", "^c": "ctrl_c", "c_c": "ctrl_c", "Ctrl+C": "ctrl_c",
		"arrow up": "up", "Alt-Left": "alt_left", " del ": "delete", "ctrl_m": "enter",
		"hello": nil, "y": nil, "": nil, "^": nil, "ctrl_q": nil,
	} {
		require.Equal(t, want, callText(t, rt, "key_name", in)["v"], "key_name(%q)", in)
	}
	require.Equal(t, "ctrl_j", callText(t, rt, "key_name", "Ctrl-J")["folded"])
}

func TestActionSelect(t *testing.T) {
	rt := intentRuntime(t)
	require.Equal(t, "key:enter", callText(t, rt, "select", 2, 2)["v"])
	require.Equal(t, "key:down key:down key:enter", callText(t, rt, "select", 1, 3)["v"])
	require.Equal(t, "key:up key:enter", callText(t, rt, "select", 4, 3)["v"])
	require.NoError(t, rt.Ensure(t.Context()))
	err := rt.Call(t.Context(), "select", func(a *Args) error {
		require.NoError(t, a.Go(0))
		return a.Go(2)
	}, nil)
	require.ErrorContains(t, err, "bad argument #1 to 'select' (rows count from 1)")
}

func TestRequireState(t *testing.T) {
	rt := intentRuntime(t)
	require.Equal(t, "ok", callText(t, rt, "require_state", "waiting_for_trust")["v"])
	for state, shown := range map[any]string{"ready": "ready", nil: "nil"} {
		require.NoError(t, rt.Ensure(t.Context()))
		err := rt.Call(t.Context(), "require_state", func(a *Args) error { return a.Go(state) }, nil)
		require.ErrorIs(t, err, rt.host.Errors.Refused)
		var pe *Error
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "approve: not possible in state "+shown+" (needs waiting_for_permission or waiting_for_trust)", pe.Message)
	}
}
