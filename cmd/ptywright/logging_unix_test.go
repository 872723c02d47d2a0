//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestServeLogLevel: a plugin's log.debug lines reach stderr under
// --log-level debug or PTYWRIGHT_LOG=debug, and only then; info lines
// always do.
func TestServeLogLevel(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "manifest.toml")
	require.NoError(t, os.WriteFile(manifest, []byte(`name = "chatty"
kind = "macro"
version = "1"
runtime = "lua"
entrypoint = "main.lua"
permissions = []
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), []byte(`local M = {}
function M.hi()
  ptywright.log.debug("debug line from the plugin")
  ptywright.log.info("info line from the plugin")
  return 1
end
return M
`), 0o600))
	tests := []struct {
		name  string
		env   string
		args  []string
		debug bool
	}{
		{"default", "", nil, false},
		{"flag", "", []string{"--log-level", "debug"}, true},
		{"env", "debug", nil, true},
		{"flag beats env", "debug", []string{"--log-level=info"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(logEnv, tt.env)
			s := startStdio(t, append([]string{"--plugin", manifest}, tt.args...)...)
			s.call(t, "plugin.call", map[string]any{"plugin": "chatty", "hook": "hi"}, nil)
			s.end(t)
			out := s.stderr.String()
			require.Contains(t, out, "info line from the plugin")
			require.Equal(t, tt.debug, strings.Contains(out, "debug line from the plugin"), out)
		})
	}
	t.Run("bad env", func(t *testing.T) {
		t.Setenv(logEnv, "loud")
		for _, cmd := range []string{"serve", "mcp"} {
			res := runBinary(t, nil, cmd)
			require.Equal(t, exitUsage, res.code, res.stderr)
			require.Contains(t, res.stderr, `$PTYWRIGHT_LOG="loud": must be debug, info, warn or error`)
		}
		res := runBinary(t, nil, "serve", "--stdio", "--log-level", "loud")
		require.Equal(t, exitUsage, res.code, res.stderr)
		require.Contains(t, res.stderr, `invalid value "loud" for flag -log-level`)
	})
}
