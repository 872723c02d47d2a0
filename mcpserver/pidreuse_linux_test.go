//go:build linux

package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestSessionCloseAfterExitSignalsNobody: the MCP face of the root
// package's pidreuse tests. A program that exited keeps its pid (unreaped)
// until session_close, which ends what is left of its group and reaps it:
// no process that could have been handed the pid is ever signalled.
func TestSessionCloseAfterExitSignalsNobody(t *testing.T) {
	s := serve(t, Options{}, nil)
	var st startOut
	s.ok(t, "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "exit 0"}}, &st)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "exited": true}, &w)
	require.True(t, w.Exited)

	by, got := tuitest.ClaimPid(t, st.Pid)
	require.False(t, got, "the pid %d of the exited, open session went to another process", st.Pid)
	s.ok(t, "session_close", map[string]any{"session": st.Session}, nil)
	assert.Equal(t, "terminated", tuitest.End(by), "session_close of an exited session reached a bystander")
	by, got = tuitest.ClaimPid(t, st.Pid)
	require.True(t, got, "after session_close the pid %d is still held: the child was not reaped", st.Pid)
	assert.Equal(t, "terminated", tuitest.End(by))
}
