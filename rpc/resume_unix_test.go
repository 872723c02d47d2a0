//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBadResumeKeepsThePrior: adapter.resume closes prior_adapter only once
// the new adapter can start. Besides the plugin, permissions and cwd, it
// checks the launch the way ptywright.Start will do it: a program that
// does not resolve (in PATH or the cwd), or args execve cannot pass (a
// NUL byte), are -32602 and leave the prior adapter running. They used to
// close it first and then fail the start.
func TestBadResumeKeepsThePrior(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	for _, bad := range []map[string]any{
		{"program": "/nonexistent/program"},
		{"program": "/bin/sh", "args": []string{"-c", "cat\x00"}},
		{"program": "./cat", "cwd": t.TempDir()},
		{"program": "/bin/sh", "env": map[string]any{"A": "b\x00"}},
	} {
		prior := c.startAdapter(map[string]any{"plugin": "echo"})
		c.sendText(prior.Adapter, "alive")
		params := map[string]any{"plugin": "echo", "prior_adapter": prior.Adapter}
		for k, v := range bad {
			params[k] = v
		}
		e := c.callErr("adapter.resume", params)
		assert.Equal(t, int64(CodeInvalidParams), e.Code, "resume with %v: %s", bad, e.Message)
		var live adapterLiveResult
		c.do("adapter.live", nil, &live)
		ids := []string{}
		for _, a := range live.Adapters {
			ids = append(ids, a.Adapter)
		}
		if assert.Contains(t, ids, prior.Adapter, "a failed adapter.resume (%v) closed the prior adapter", bad) {
			c.do("adapter.close", map[string]any{"adapter": prior.Adapter}, nil)
		}
	}
}
