//go:build linux

package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestSessionKillAfterExitSignalsNobody: session.kill and session.input
// {signal} on a session whose program exited answer -32002 ("the program
// exited"), as text input does, and signal nobody: the exited child holds
// its pid (its process group id) until session.close, so no stranger can
// have it meanwhile, and after the close nothing is signalled by it. See
// the root package's pidreuse tests.
func TestSessionKillAfterExitSignalsNobody(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh("exit 0")
	c.wait(id, map[string]any{"type": "process_exited"})
	e, err := srv.reg.get(id)
	require.NoError(t, err)
	pid := e.sess.Pid()

	by, got := tuitest.ClaimPid(t, pid)
	require.False(t, got, "the pid %d of the exited, open session went to another process", pid)
	res, rpcErr := c.call("session.kill", map[string]any{"session": id})
	if assert.NotNil(t, rpcErr, "session.kill after exit claimed success: %s", res) {
		assert.Equal(t, int64(CodeSessionClosed), rpcErr.Code, rpcErr.Message)
		assert.Contains(t, rpcErr.Message, "exited")
	}
	res, rpcErr = c.call("session.input", map[string]any{"session": id, "action": map[string]any{"type": "signal", "value": "usr1"}})
	if assert.NotNil(t, rpcErr, "session.input signal after exit claimed it was sent: %s", res) {
		assert.Equal(t, int64(CodeSessionClosed), rpcErr.Code, rpcErr.Message)
	}
	c.do("session.close", map[string]any{"session": id}, nil)
	assert.Equal(t, "terminated", tuitest.End(by), "a call on the exited session reached a bystander")

	by, got = tuitest.ClaimPid(t, pid)
	require.True(t, got, "after session.close the pid %d is still held: the child was not reaped", pid)
	_, rpcErr = c.call("session.kill", map[string]any{"session": id})
	assert.NotNil(t, rpcErr, "session.kill on a closed session")
	assert.Equal(t, "terminated", tuitest.End(by), "session.kill after the close reached the process that has the old pid %d", pid)
}
