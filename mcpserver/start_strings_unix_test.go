//go:build unix

package mcpserver

import (
	"strings"
	"testing"
)

// TestStartBadStringsFail: session_start and adapter_start refuse what the
// OS cannot take as given, naming the field, as the JSON-RPC methods do
// (the checks are internal/host's): a NUL byte, an env name with '=', args
// longer than the system takes.
func TestStartBadStringsFail(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest)}, nil)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo a\x00b"}}, "args: args[1] contains a NUL byte"},
		{map[string]any{"program": "/bin/sh", "env": map[string]string{"A=B": "x"}}, `env: variable name "A=B" contains '='`},
		{map[string]any{"program": "/bin/sh", "args": []string{"-c", strings.Repeat("a", 200000)}}, "args: args and env together are longer than the system takes"},
	} {
		s.fails(t, "session_start", tt.args, tt.want)
		tt.args["plugin"] = "echo"
		s.fails(t, "adapter_start", tt.args, tt.want)
	}
	s.startShell(t)
}
