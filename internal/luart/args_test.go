package luart

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/manifest"
)

// TestArgumentErrorsNameTheFunction: the host's replacements of standard
// functions and its own helpers raise Lua's "bad argument" message with
// the function's name, never go-lua's '?'.
func TestArgumentErrorsNameTheFunction(t *testing.T) {
	m := manifest.Manifest{Name: "args", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite}}
	rt, err := New(context.Background(), Config{Manifest: m, Host: testHost, Source: []byte(`local M = {}
function M.pcall() return pcall() end
function M.xpcall() return xpcall(print) end
function M.concat() return table.concat(1) end
function M.error() error("x", 1.5) end
function M.invalid() ptywright.invalid_params() end
function M.text() return ptywright.action.text({}) end
function M.emit() ptywright.emit() end
function M.trim() return ptywright.text.trim({}) end
return M`)})
	require.NoError(t, err)
	for fn, want := range map[string]string{
		"pcall":   "bad argument #1 to 'pcall' (value expected)",
		"xpcall":  "bad argument #2 to 'xpcall' (value expected)",
		"concat":  "bad argument #1 to 'concat' (table expected, got number)",
		"error":   "bad argument #2 to 'error' (number has no integer representation)",
		"invalid": "bad argument #1 to 'invalid_params' (string expected, got no value)",
		"text":    "bad argument #1 to 'text' (string expected, got table)",
		"emit":    "bad argument #1 to 'emit' (string expected, got no value)",
		"trim":    "bad argument #1 to 'text.trim' (string expected, got table)", // every text.* case: TestTextArgumentErrors
	} {
		t.Run(fn, func(t *testing.T) {
			require.NoError(t, rt.Ensure(context.Background()))
			err := rt.Call(context.Background(), fn, nil, func(Value) error { return nil })
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Message, want)
		})
	}
}
