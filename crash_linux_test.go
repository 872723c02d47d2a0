//go:build linux

package ptywright_test

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// TestChildrenDieWithAKilledProcess: a process holding sessions that is
// killed with SIGKILL, so that no Close runs, takes their children with
// it, even children that ignore the SIGHUP of their terminal's hangup.
func TestChildrenDieWithAKilledProcess(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	holder := exec.Command(exe)
	holder.Env = append(os.Environ(), childModeEnv+"=sessions", "PTYWRIGHT_TEST_SESSIONS=8")
	holder.Stderr = os.Stderr
	stdin, err := holder.StdinPipe()
	require.NoError(t, err)
	stdout, err := holder.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, holder.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = holder.Process.Kill() // Best effort: the test killed it already.
		_ = holder.Wait()
	})

	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("the holder never listed its sessions' pids")
	}
	fields := strings.Fields(line)
	require.Len(t, fields, 9, "PIDS and 8 pids: %q", line)
	children := make([]tuitest.Daemon, 0, 8)
	for _, f := range fields[1:] {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		st, ok := tuitest.ProcStatFields(pid)
		require.True(t, ok, "child %d runs", pid)
		d := tuitest.Daemon{Pid: pid, Start: st[19]}
		t.Cleanup(func() { d.Kill(t) }) // A survivor must not outlive the test.
		children = append(children, d)
	}

	require.NoError(t, holder.Process.Kill())
	_ = holder.Wait() // Killed: the error says so.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var alive []int
		for _, d := range children {
			if d.Running() {
				alive = append(alive, d.Pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children %v outlived the process that started them", alive)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestChildOutlivesTheThreadThatStartedIt: the parent-death signal is
// tied to the thread that forks, and a goroutine that ends locked to its
// thread ends the thread; a session started from such a goroutine must not
// lose its child.
func TestChildOutlivesTheThreadThatStartedIt(t *testing.T) {
	tuitest.NoLeak(t)
	started := make(chan *ptywright.Session, 1)
	go func() {
		runtime.LockOSThread() // Never unlocked: the thread ends with the goroutine.
		s, err := ptywright.Start(ptywright.Options{Program: "sleep", Args: []string{"300"}})
		if err != nil {
			t.Error(err)
		}
		started <- s
	}()
	s := <-started
	require.NotNil(t, s)
	t.Cleanup(func() { _ = s.Close() })
	select {
	case <-s.Exited():
		st, _ := s.ExitStatus()
		t.Fatalf("the child died with the thread that started it: %+v", st)
	case <-time.After(300 * time.Millisecond):
	}
}
