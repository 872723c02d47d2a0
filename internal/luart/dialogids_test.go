package luart

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// dialogPlugin keeps two numberings, so the test also shows that each
// instances() call counts on its own.
const dialogPlugin = `local M = {}
local a, b = ptywright.dialog.instances(), ptywright.dialog.instances()
function M.a(key, idle) return {v = a(key, idle)} end
function M.b(key, idle) return {v = b(key, idle)} end
return M`

func TestDialogInstances(t *testing.T) {
	rt := textRuntime(t, dialogPlugin, Limits{})
	steps := []struct {
		fn   string
		key  any
		idle bool
		want any
	}{
		{"a", "perm-x", false, "perm-x-1"},
		{"a", "perm-x", false, "perm-x-1"}, // The same dialog read twice.
		{"a", nil, false, nil},             // A screen between frames: not idle.
		{"a", "perm-x", false, "perm-x-1"},
		{"a", "perm-y", false, "perm-y-2"}, // Another dialog.
		{"a", "perm-x", false, "perm-x-3"}, // Back to the first: a new instance.
		{"a", nil, true, nil},              // The composer: answered.
		{"a", "perm-x", false, "perm-x-4"}, // The same question again is a new one.
		{"b", "perm-x", false, "perm-x-1"}, // Another numbering starts at 1.
		{"a", "perm-x", true, "perm-x-4"},  // idle with a dialog does not reset.
	}
	for i, s := range steps {
		got := callText(t, rt, s.fn, s.key, s.idle)
		require.Equal(t, s.want, got["v"], "step %d: %s(%v, %v)", i, s.fn, s.key, s.idle)
	}
	rt2 := textRuntime(t, `return { bad = function() return {v = ptywright.dialog.instances()({})} end }`, Limits{})
	require.NoError(t, rt2.Ensure(t.Context()))
	err := rt2.Call(t.Context(), "bad", nil, nil)
	require.ErrorContains(t, err, "dialog.instances()")
}

func TestTextHash(t *testing.T) {
	rt := textRuntime(t, `return { hash = function(s) return {v = ptywright.text.hash(s)} end }`, Limits{})
	for in, want := range map[string]string{
		"":    "00001505",
		"abc": "0b885c8b",
	} {
		require.Equal(t, want, callText(t, rt, "hash", in)["v"], "hash(%q)", in)
	}
}
