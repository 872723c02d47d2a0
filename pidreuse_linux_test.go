//go:build linux

package ptywright_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// A session's child leads its process group and terminal session, so its
// pid is also their id. Once the child is reaped the kernel may hand that
// number to a stranger; a signal sent by it (kill(-pid)) would then hit an
// unrelated process group. These tests hand out the pid on purpose
// (tuitest.ClaimPid steers the allocator through ns_last_pid) and check
// that a session never signals a pid it no longer owns: an exited child
// keeps its pid (unreaped) until Close, Kill and Signal after the exit
// answer ErrProcessExited and signal nobody, and after Close nothing is
// signalled by it at all.

func exitedSession(t *testing.T) (*ptywright.Session, int) {
	t.Helper()
	s := sh(t, `exit 0`)
	waitFor(t, s, ptywright.ProcessExited())
	return s, s.Pid()
}

// TestKillAfterExitSignalsNobody: Kill after the program exited is
// ErrProcessExited, and no stranger can have the pid meanwhile.
func TestKillAfterExitSignalsNobody(t *testing.T) {
	for i := range 3 {
		s, pid := exitedSession(t)
		by, got := tuitest.ClaimPid(t, pid)
		require.False(t, got, "round %d: the pid %d of the exited, unclosed session went to another process", i, pid)
		err := s.Kill()
		require.ErrorIs(t, err, ptywright.ErrProcessExited, "round %d: Kill after the program exited", i)
		require.Equal(t, "terminated", tuitest.End(by), "round %d: Kill after the exit reached a bystander", i)
	}
}

// TestCloseAfterExitSignalsNobody: Close of a session whose program exited
// (the usual end) reaps it, frees the pid, and signals nothing by it
// afterwards, Close again included.
func TestCloseAfterExitSignalsNobody(t *testing.T) {
	s, pid := exitedSession(t)
	near, got := tuitest.ClaimPid(t, pid)
	require.False(t, got, "the pid %d of the exited, unclosed session went to another process", pid)
	require.NoError(t, s.Close())
	require.Equal(t, "terminated", tuitest.End(near), "Close after the exit reached a bystander")

	by, got := tuitest.ClaimPid(t, pid)
	require.True(t, got, "after Close the pid %d is still held: the child was not reaped", pid)
	require.ErrorIs(t, s.Kill(), ptywright.ErrSessionClosed)
	require.ErrorIs(t, s.Signal(ptywright.SignalTerm), ptywright.ErrSessionClosed)
	require.NoError(t, s.Close())
	require.Equal(t, "terminated", tuitest.End(by), "a closed session signalled the process that has its old pid %d", pid)
}

// TestSignalAfterExitIsProcessExited: a signal to a program that exited
// reaches nobody and says so, as text after the exit does.
func TestSignalAfterExitIsProcessExited(t *testing.T) {
	s, _ := exitedSession(t)
	err := s.Send(t.Context(), ptywright.SendSignal(ptywright.SignalUsr1))
	require.ErrorIs(t, err, ptywright.ErrProcessExited, "a signal sent after the program exited was reported as sent")
}

// TestCloseEndsTheGroupAnExitedChildLeft: the child exits, leaving a job
// in its process group (one that ignores the SIGHUP of its leader's exit).
// The child stays a zombie, holding the group's id, so Close can still
// SIGKILL the group safely, and does.
func TestCloseEndsTheGroupAnExitedChildLeft(t *testing.T) {
	tuitest.NoLeak(t)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `(trap "" HUP; exec sleep 300) & echo JOB=$!`}})
	require.NoError(t, err)
	res := waitFor(t, s, ptywright.ScreenRegex(`JOB=(\d+)`))
	job, err := strconv.Atoi(*res.Outcome.Capture)
	require.NoError(t, err)
	waitFor(t, s, ptywright.ProcessExited())
	leader, ok := tuitest.ProcStatFields(s.Pid())
	require.True(t, ok, "the exited child's pid is free before Close")
	require.Equal(t, "Z", leader[0], "the exited child is kept unreaped until Close")
	require.Equal(t, strconv.Itoa(os.Getpid()), leader[1])
	st, ok := tuitest.ProcStatFields(job)
	require.True(t, ok, "the job died with its leader: the test proves nothing")
	require.Equal(t, strconv.Itoa(s.Pid()), st[2], "the job is in the child's process group")
	d := tuitest.Daemon{Pid: job, Start: st[19]}
	t.Cleanup(func() { d.Kill(t) })

	require.NoError(t, s.Close())
	require.Eventually(t, func() bool { return !d.Running() }, 5*time.Second, 5*time.Millisecond, "job %d outlived Close", job)
	_, held := tuitest.ProcStatFields(s.Pid())
	require.False(t, held, "Close did not reap the child")
}
