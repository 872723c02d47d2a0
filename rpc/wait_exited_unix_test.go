//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWaitsOnAnExitedProgramSaySo: once the program has exited and its
// output is all read, session.wait and adapter.wait (two minutes by
// default) for what the final screen does not show answer -32002 "the
// program exited" at once, with the final screen as data, instead of
// waiting out their timeout; what the final screen shows still matches.
func TestWaitsOnAnExitedProgramSaySo(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)

	id := c.sh("echo goodbye")
	c.wait(id, map[string]any{"type": "process_exited"})
	e := c.callErr("session.wait", map[string]any{"session": id, "matcher": containsText("never printed"), "timeout_ms": 60_000})
	requireError(t, e, CodeSessionClosed, "the program exited")
	require.Equal(t, []string{"elapsed_ms", "sequence", "snapshot", "transcript_tail"}, keys(t, e.Data))
	require.Contains(t, errData(t, e)["transcript_tail"], "goodbye")
	c.wait(id, containsText("goodbye"))

	a := c.startAdapter(map[string]any{"plugin": "echo", "program": "/bin/sh", "args": []string{"-c", "echo goodbye"}})
	c.wait(a.Session, map[string]any{"type": "process_exited"})
	e = c.callErr("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "never printed"}})
	requireError(t, e, CodeSessionClosed, "the program exited")
	require.Contains(t, errData(t, e)["transcript_tail"], "goodbye")
}
