//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func startSleep(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Env = env
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: the test may have reaped it.
		_ = cmd.Wait()
	})
	return cmd
}

func entryOf(l *listing, pid int) *procEntry {
	for _, p := range l.procs {
		if p.pid == pid {
			return p
		}
	}
	return nil
}

// TestTableReadsAProcessOnce: a process listed again is the entry read
// the first time; a new one is read, markers included.
func TestTableReadsAProcessOnce(t *testing.T) {
	var tb table
	a := startSleep(t)
	first := entryOf(tb.list(), a.Process.Pid)
	require.NotNil(t, first)
	require.Equal(t, StartTime(a.Process.Pid), first.stat.start)

	marker := NewMarker()
	b := startSleep(t, MarkerEnv+"=other:"+marker)
	l := tb.list()
	require.Same(t, first, entryOf(l, a.Process.Pid), "read again")
	nb := entryOf(l, b.Process.Pid)
	require.NotNil(t, nb, "a new process is listed")
	var buf []byte
	require.True(t, nb.hasMarker(marker, &buf))
	require.False(t, nb.hasMarker(NewMarker(), &buf))
	require.False(t, first.hasMarker(marker, &buf))

	require.NoError(t, b.Process.Kill())
	_ = b.Wait() // Killed.
	require.Nil(t, entryOf(tb.list(), b.Process.Pid), "a reaped process is dropped")
}

// TestTableRereadsAReusedPid: a pid the kernel gives to a new process is
// a new entry, read afresh, though the table knew the pid: the inode of
// /proc/PID is the process's, not the pid's.
func TestTableRereadsAReusedPid(t *testing.T) {
	var tb table
	old := startSleep(t)
	pid := old.Process.Pid
	require.NotNil(t, entryOf(tb.list(), pid))
	require.NoError(t, old.Process.Kill())
	_ = old.Wait() // Killed.

	reused := claimPid(t, pid)
	got := entryOf(tb.list(), pid)
	require.NotNil(t, got)
	require.Equal(t, StartTime(reused.Process.Pid), got.stat.start, "the entry is the new process's")
	require.Equal(t, os.Getpid(), got.stat.ppid)
}

// claimPid starts sleep with pid want, steering the allocator through
// ns_last_pid (root only: skipped elsewhere), under the lock tuitest's
// ClaimPid takes, which other packages' tests steer with.
func claimPid(t *testing.T, want int) *exec.Cmd {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "ptywright-ns_last_pid.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer func() { _ = lock.Close() }() // Releases the lock too.
	for range 100 {
		require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(want-1)), 0); err != nil {
			t.Skipf("cannot steer pid allocation (%v): needs root in the pid namespace", err)
		}
		cmd := startSleep(t)
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) // Best effort: Close releases it anyway.
		if cmd.Process.Pid == want {
			return cmd
		}
		_ = cmd.Process.Kill() // Another fork took the pid first: try again.
		_ = cmd.Wait()
	}
	t.Skipf("pid %d never came back", want)
	return nil
}

// TestTableSharesListings: callers asking at once share listings, each
// begun after its call.
func TestTableSharesListings(t *testing.T) {
	var tb table
	const callers = 50
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() { require.NotEmpty(t, tb.list().procs) })
	}
	wg.Wait()
	require.Less(t, tb.started, uint64(callers), "listings for %d callers", callers)
	t.Logf("%d callers, %d listings", callers, tb.started)
}
