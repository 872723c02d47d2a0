//go:build unix

package ptywright_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"ptywright"
)

// nofileFigures is what runNofileChild saw.
type nofileFigures struct {
	Started  int    `json:"started"`
	Err      string `json:"err"`
	Capacity bool   `json:"capacity"`
	Invalid  bool   `json:"invalid"`
}

// runNofileChild lowers its own RLIMIT_NOFILE to a few descriptors more
// than it has open, starts sessions until one fails, prints what it saw as
// JSON and closes them.
func runNofileChild() int {
	fds, err := os.ReadDir("/dev/fd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	limit := uint64(len(fds) + 12)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var fig nofileFigures
	var sessions []*ptywright.Session
	for range 100 {
		s, err := ptywright.Start(ptywright.Options{Program: "sleep", Args: []string{"60"}})
		if err != nil {
			fig.Err = err.Error()
			fig.Capacity = errors.Is(err, ptywright.ErrCapacity)
			fig.Invalid = errors.Is(err, ptywright.ErrInvalidParams)
			break
		}
		sessions = append(sessions, s)
	}
	fig.Started = len(sessions)
	for _, s := range sessions {
		_ = s.Close() // The figures are out; a failed close shows in the parent's leak checks of its own.
	}
	if err := json.NewEncoder(os.Stdout).Encode(fig); err != nil {
		return 1
	}
	return 0
}

// TestStartOutOfFileDescriptorsIsCapacity: a start refused because the
// process has no file descriptor left is ErrCapacity, not the caller's
// mistake, and the sessions already running are unharmed (they close).
// The limit is lowered in a child process of the test binary, whose
// descriptors are its own.
func TestStartOutOfFileDescriptorsIsCapacity(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childModeEnv+"=nofile")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var fig nofileFigures
	require.NoError(t, json.Unmarshal(out, &fig), "%q", out)
	require.Positive(t, fig.Started, "the first session fits: %s", fig.Err)
	require.True(t, fig.Capacity, "ErrCapacity: %s", fig.Err)
	require.False(t, fig.Invalid, "not the caller's mistake: %s", fig.Err)
	require.Contains(t, fig.Err, "too many open files")
	t.Logf("%d sessions, then: %s", fig.Started, fig.Err)
}
