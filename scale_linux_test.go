//go:build linux

package ptywright_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// scaleSessions is how many sessions TestManySessionsFewThreads holds: a
// few hundred, so that it stays quick under -race on two cores.
const scaleSessions = 300

// TestManySessionsFewThreads: a process holding hundreds of idle
// sessions keeps a handful of OS threads, not one per session (a thread
// per session ran into RLIMIT_AS at a couple of hundred, and the runtime
// aborts when it cannot make one). The sessions live in a child process,
// niced, whose threads are its own: a Go process never gives threads back,
// so this one's count says what earlier tests needed.
func TestManySessionsFewThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("holds hundreds of sessions")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe)
	if nice, err := exec.LookPath("nice"); err == nil {
		cmd = exec.Command(nice, "-n", "10", exe)
	}
	cmd.Env = append(os.Environ(), childModeEnv+"=scale", "PTYWRIGHT_TEST_SESSIONS="+strconv.Itoa(scaleSessions))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var fig scaleFigures
	require.NoError(t, json.Unmarshal(out, &fig), "%q", out)
	t.Logf("%d sessions: %d threads (%d before the first), RSS %.1f MiB; created in %.0f ms; Close one at a time %.1f ms each, the other %d at once %.0f ms; %d threads after",
		fig.Sessions, fig.Threads, fig.ThreadsIdle, float64(fig.RSSKiB)/1024, fig.CreateMs,
		fig.CloseOneMs, fig.Sessions-scaleCloseOne, fig.CloseAllMs, fig.ThreadsClosing)
	require.Less(t, fig.Threads, scaleSessions/4+30, "threads with %d idle sessions", scaleSessions)
}
