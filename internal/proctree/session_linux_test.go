//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadProcStat reads the stat of every process on the machine, and of
// one whose command name holds spaces and parentheses, and compares the
// fields with a plain split of the file.
func TestReadProcStat(t *testing.T) {
	odd := filepath.Join(t.TempDir(), "a) b (c")
	require.NoError(t, os.Symlink("/bin/sleep", odd))
	cmd := exec.Command(odd, "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: the test is done with it.
		_ = cmd.Wait()
	})

	st, ok := readProcStat(cmd.Process.Pid)
	require.True(t, ok)
	require.Equal(t, os.Getpid(), st.ppid)
	require.Equal(t, cmd.Process.Pid, st.sid, "Setsid: it leads its session")
	require.Equal(t, cmd.Process.Pid, st.pgrp)
	require.Positive(t, st.start)

	checked := 0
	for _, pid := range procPids() {
		data, err := os.ReadFile(procPath(pid, "stat"))
		if err != nil {
			continue // Gone meanwhile.
		}
		got, ok := readProcStat(pid)
		if !ok {
			continue // Gone between the two reads.
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		want := procStat{state: f[0][0], ppid: atoi(t, f[1]), pgrp: atoi(t, f[2]), sid: atoi(t, f[3])}
		want.start = uint64(atoi(t, f[19]))
		if pid != os.Getpid() && got.state != want.state {
			continue // It changed state between the two reads.
		}
		require.Equal(t, want.ppid, got.ppid, "pid %d: %q", pid, s)
		require.Equal(t, want.pgrp, got.pgrp, "pid %d", pid)
		require.Equal(t, want.sid, got.sid, "pid %d", pid)
		require.Equal(t, want.start, got.start, "pid %d", pid)
		checked++
	}
	require.Positive(t, checked)

	_, ok = readProcStat(1 << 30)
	require.False(t, ok, "no such process")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	require.NoError(t, err)
	return v
}

// TestSessionEmpty: Track sees the members of the root's terminal session,
// so Close can skip KillSession's scan only when there are none.
func TestSessionEmpty(t *testing.T) {
	// A session leader whose background job outlives it.
	cmd := exec.Command("/bin/sh", "-c", `/bin/sleep 30 >/dev/null 2>&1 & echo $!`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.Output()
	require.NoError(t, err)
	job := atoi(t, strings.TrimSpace(string(out)))
	t.Cleanup(func() { _ = syscall.Kill(job, syscall.SIGKILL) })
	root := cmd.Process.Pid
	d := Track(root, 0, NewMarker())
	d.Release()
	require.False(t, d.SessionEmpty(), "job %d is in session %d", job, root)

	// A session leader that left nothing behind. A process that ends
	// between the listing of /proc and the read of its stat makes the scan
	// unsure (not empty), which a busy machine may cause once or twice.
	cmd = exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, cmd.Run())
	empty := false
	for range 20 {
		d = Track(cmd.Process.Pid, 0, NewMarker())
		d.Release()
		if empty = d.SessionEmpty(); empty {
			break
		}
	}
	require.True(t, empty)
}
