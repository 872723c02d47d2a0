//go:build unix

package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// session.mouse: a program with no mouse reporting on gets nothing and the
// client -32006; bad params are -32602 naming the field.
func TestSessionMouseRefuses(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	var created sessionResult
	raw, rpcErr := c.call("session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo plain; exec cat"}})
	require.Nil(t, rpcErr)
	require.NoError(t, json.Unmarshal(raw, &created))
	s := created.Session
	_, rpcErr = c.call("session.wait", map[string]any{"session": s, "matcher": containsText("plain")})
	require.Nil(t, rpcErr)
	for _, tc := range []struct {
		params map[string]any
		code   int64
		msg    string
	}{
		{map[string]any{"session": s, "kind": "click"}, CodeIntentRefused, "has not enabled mouse reporting"},
		{map[string]any{"session": s, "kind": "click", "mods": []string{"hyper"}}, CodeInvalidParams, `mods[0]: unknown modifier "hyper" (valid: shift, alt, ctrl)`},
		{map[string]any{"session": s}, CodeInvalidParams, "kind: required"},
	} {
		_, rpcErr := c.call("session.mouse", tc.params)
		requireError(t, rpcErr, tc.code, tc.msg)
	}
}
