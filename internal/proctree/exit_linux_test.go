//go:build linux

package proctree

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// threadsIn counts this process's threads blocked in system call nr now.
func threadsIn(t *testing.T, nr int) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/syscall")
		if err != nil {
			continue // The thread exited meanwhile.
		}
		if f := strings.Fields(string(b)); len(f) > 0 && f[0] == strconv.Itoa(nr) {
			n++
		}
	}
	return n
}

// TestAwaitExitHoldsNoThread: children waited for at once park their
// goroutines in the poller, none an OS thread in waitid; each wait returns
// its own child's status once it exits, and leaves the child a zombie.
func TestAwaitExitHoldsNoThread(t *testing.T) {
	const n = 40
	cmds := make([]*exec.Cmd, n)
	stdins := make([]io.WriteCloser, n)
	for i := range cmds {
		// Exit codes 0-6, and every seventh child killed by SIGTERM.
		script := fmt.Sprintf("read x; exit %d", i%7)
		if i%7 == 6 {
			script = "read x; kill -TERM $$"
		}
		cmds[i] = exec.Command("/bin/sh", "-c", script)
		in, err := cmds[i].StdinPipe()
		require.NoError(t, err)
		stdins[i] = in
		require.NoError(t, cmds[i].Start())
		t.Cleanup(func() {
			_ = in.Close()
			_ = cmds[i].Process.Kill() // Best effort: it may have exited.
			_ = cmds[i].Wait()
		})
	}
	type result struct {
		i   int
		ws  syscall.WaitStatus
		err error
	}
	results := make(chan result, n)
	for i, c := range cmds {
		go func() {
			ws, err := AwaitExit(c.Process.Pid)
			results <- result{i, syscall.WaitStatus(ws), err}
		}()
	}
	time.Sleep(200 * time.Millisecond) // Every wait has started.
	require.Zero(t, threadsIn(t, unix.SYS_WAITID), "threads blocked in waitid while %d children run", n)
	require.Empty(t, results, "a wait returned while its child runs")

	for _, in := range stdins {
		require.NoError(t, in.Close())
	}
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case r := <-results:
			require.NoError(t, r.err)
			if r.i%7 == 6 {
				require.True(t, r.ws.Signaled(), "child %d: %#x", r.i, r.ws)
				require.Equal(t, syscall.SIGTERM, r.ws.Signal())
			} else {
				require.True(t, r.ws.Exited(), "child %d: %#x", r.i, r.ws)
				require.Equal(t, r.i%7, r.ws.ExitStatus())
			}
			st, ok := readProcStat(cmds[r.i].Process.Pid)
			require.True(t, ok && st.state == 'Z', "child %d is still a zombie, its pid held, until reaped", r.i)
		case <-timeout:
			t.Fatal("a child's exit was never seen")
		}
	}
}

// TestAwaitBlocking: the fallback for kernels without pidfds reads the
// same statuses, and leaves the child unreaped too.
func TestAwaitBlocking(t *testing.T) {
	for _, tc := range []struct {
		script string
		check  func(syscall.WaitStatus) bool
	}{
		{"exit 3", func(ws syscall.WaitStatus) bool { return ws.Exited() && ws.ExitStatus() == 3 }},
		{"kill -KILL $$", func(ws syscall.WaitStatus) bool { return ws.Signaled() && ws.Signal() == syscall.SIGKILL }},
	} {
		cmd := exec.Command("/bin/sh", "-c", tc.script)
		require.NoError(t, cmd.Start())
		ws, err := awaitBlocking(cmd.Process.Pid)
		require.NoError(t, err)
		require.True(t, tc.check(syscall.WaitStatus(ws)), "%s: %#x", tc.script, ws)
		st, ok := readProcStat(cmd.Process.Pid)
		require.True(t, ok && st.state == 'Z', "%s: still a zombie", tc.script)
		_ = cmd.Wait() // The status says how it ended.
	}
}
