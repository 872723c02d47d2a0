//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// session.create with a preset and session.run: a python3 REPL's output
// and status, an exception's status, and the errors for an unknown preset,
// a session created without one and neither program nor preset.
func TestSessionRunOnAPreset(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	py := c.create(map[string]any{"preset": "python"})
	var res runResult
	c.do("session.run", map[string]any{"session": py, "command": "for i in range(2):\n    print(i * 7)"}, &res)
	require.Equal(t, runResult{Output: "0\n7\n"}, res)
	c.do("session.run", map[string]any{"session": py, "command": "int('x')"}, &res)
	require.Equal(t, 1, res.Status)
	require.Contains(t, res.Output, "ValueError: invalid literal")

	e := c.callErr("session.create", map[string]any{"preset": "fish"})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, `preset: ptywright: preset unavailable: unknown preset "fish" (presets: bash, sh, zsh, python)`)
	// program is required unless preset is given: absent, null or empty.
	for _, params := range []any{nil, map[string]any{}, map[string]any{"program": nil}, map[string]any{"program": ""}} {
		e = c.callErr("session.create", params)
		require.Equal(t, int64(CodeInvalidParams), e.Code)
		require.Contains(t, e.Message, "program: must not be empty (or give a preset)")
	}
	plain := c.sh("exec cat")
	e = c.callErr("session.run", map[string]any{"session": plain, "command": "true"})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "was not created with a preset")
}
