//go:build unix

package rpc

import (
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCreateBadStringsAreInvalidParams: start params the OS cannot take as
// given are answered -32602 naming the field, by session.create and
// adapter.start alike, and nothing is started: a NUL byte in args, env or
// an output path, an env name with '=' (the program would see A="B=x" for
// {"A=B":"x"}) or an empty one, and args longer than the OS takes (E2BIG,
// which only the exec can tell).
func TestCreateBadStringsAreInvalidParams(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	dir := t.TempDir()
	cases := []struct {
		name   string
		params map[string]any
		field  string
	}{
		{"NUL in args", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo a\x00b"}}, "args[1] contains a NUL byte"},
		{"NUL in an env value", map[string]any{"program": "/bin/sh", "env": map[string]string{"A": "x\x00y"}}, "env: the value of A contains a NUL byte"},
		{"NUL in an env name", map[string]any{"program": "/bin/sh", "env": map[string]string{"A\x00": "x"}}, "env: variable name"},
		{"= in an env name", map[string]any{"program": "/bin/sh", "args": []string{"-c", "sleep 30"}, "env": map[string]string{"A=B": "x"}}, `env: variable name "A=B" contains '='`},
		{"empty env name", map[string]any{"program": "/bin/sh", "args": []string{"-c", "sleep 30"}, "env": map[string]string{"": "x"}}, "env: a variable name is empty"},
		{"NUL in program", map[string]any{"program": "/bin/sh\x00x"}, "program: contains a NUL byte"},
		{"NUL in cwd", map[string]any{"program": "/bin/sh", "cwd": dir + "/c\x00d"}, "cwd"},
		{"NUL in record_path", map[string]any{"program": "/bin/sh", "record_path": dir + "/r\x00b"}, "record_path: contains a NUL byte"},
		{"an argument longer than the OS takes (E2BIG)", map[string]any{"program": "/bin/sh", "args": []string{"-c", strings.Repeat("a", 200000)}}, "args: args and env together are longer than the system takes"},
	}
	for _, tc := range cases {
		for _, method := range []string{"session.create", "adapter.start"} {
			params := maps.Clone(tc.params)
			if method == "adapter.start" {
				params["plugin"] = "echo"
			}
			res, rpcErr := c.call(method, params)
			if !assert.NotNil(t, rpcErr, "%s %s: accepted, started %s", method, tc.name, res) {
				continue
			}
			assert.Equal(t, int64(CodeInvalidParams), rpcErr.Code, "%s %s: %s", method, tc.name, rpcErr.Message)
			assert.Contains(t, rpcErr.Message, tc.field, "%s %s", method, tc.name)
		}
	}
	res, rpcErr := c.call("session.create", map[string]any{"program": "/bin/sh", "raw_transcript_path": dir + "/a\x00b"})
	if assert.NotNil(t, rpcErr, "NUL in raw_transcript_path: accepted, started %s", res) {
		assert.Equal(t, int64(CodeInvalidParams), rpcErr.Code, rpcErr.Message)
		assert.Contains(t, rpcErr.Message, "raw_transcript_path: contains a NUL byte")
	}
	var list struct {
		Sessions []string `json:"sessions"`
	}
	c.do("session.list", nil, &list)
	require.Empty(t, list.Sessions, "no refused start left a session")
	// The server is intact: a good create still works.
	id := c.sh("echo fine; sleep 30")
	c.wait(id, containsText("fine"))
}
