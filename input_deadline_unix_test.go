//go:build unix

package ptywright_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// stuckInput is more than any PTY's input queue holds.
var stuckInput = strings.Repeat("x", 1<<20)

// requireInputError checks that err is an *InputError of class want for
// stuckInput, and returns how much went in.
func requireInputError(t *testing.T, err error, want error) int {
	t.Helper()
	require.ErrorIs(t, err, want)
	var ie *ptywright.InputError
	require.True(t, errors.As(err, &ie), "%v", err)
	require.Equal(t, len(stuckInput), ie.Len)
	require.Less(t, ie.Written, ie.Len, "the program read nothing: not all of it went in")
	require.Contains(t, err.Error(), "bytes of input written")
	return ie.Written
}

// TestInputToAProgramThatReadsNothingEndsAtItsDeadline: a write that cannot
// go through ends at its context's deadline saying how much went in, and a
// writer queued behind it ends at its own deadline, not the first one's.
func TestInputToAProgramThatReadsNothingEndsAtItsDeadline(t *testing.T) {
	s := sh(t, "stty raw -echo; echo ready; exec sleep 600")
	waitFor(t, s, ptywright.ContainsText("ready"))

	first := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
		defer cancel()
		w, err := s.Perform(ctx, ptywright.Paste(stuckInput))
		require.Equal(t, w.Bytes, inputWritten(err))
		first <- err
	}()
	// The second waits its turn behind the first (which holds the input
	// once a probe times out behind it); its own, shorter deadline ends
	// it, with nothing written.
	waitInputHeld(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.Perform(ctx, ptywright.Text("y"))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.Less(t, time.Since(start), 2*time.Second, "the queued writer ended at its own deadline")
	select {
	case err := <-first:
		t.Fatalf("the first write ended before its deadline: %v", err)
	default:
	}
	written := requireInputError(t, <-first, ptywright.ErrTimeout)
	require.Positive(t, written, "the PTY's queue took some")
}

// inputWritten is what an *InputError says went in, 0 for another error.
func inputWritten(err error) int {
	var ie *ptywright.InputError
	if errors.As(err, &ie) {
		return ie.Written
	}
	return 0
}

// TestKillReleasesAStuckWrite: a write waiting for a program that reads
// nothing ends when the program is killed, as ErrProcessExited.
func TestKillReleasesAStuckWrite(t *testing.T) {
	s := sh(t, "stty raw -echo; echo ready; exec sleep 600")
	waitFor(t, s, ptywright.ContainsText("ready"))
	done := make(chan error, 1)
	go func() {
		_, err := s.Perform(context.Background(), ptywright.Paste(stuckInput))
		done <- err
	}()
	waitInputHeld(t, s)
	require.NoError(t, s.Kill())
	select {
	case err := <-done:
		require.ErrorIs(t, err, ptywright.ErrProcessExited)
	case <-time.After(10 * time.Second):
		t.Fatal("the write outlived the program")
	}
}

// stuckShell is a program that reads nothing with ISIG on (so the
// terminal turns ^C into SIGINT) and the line discipline in non-canonical
// mode (so a full input queue holds the writer instead of dropping input),
// which exits 3 at SIGINT.
const stuckShell = `stty -icanon -echo; trap 'echo got-int; exit 3' INT; echo ready; while :; do sleep 0.1; done`

// waitInputHeld returns once a one-byte input to s times out behind
// another write: that write holds the program's input.
func waitInputHeld(t *testing.T, s *ptywright.Session) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		// Long enough that only a held input, not a loaded machine's
		// scheduling, makes it time out.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := s.Perform(ctx, ptywright.Text("y"))
		cancel()
		if errors.Is(err, ptywright.ErrTimeout) && inputWritten(err) == 0 {
			return
		}
		require.NoError(t, err)
	}
	t.Fatal("no write held the input")
}

// TestInterruptReachesAProgramBehindAStuckWrite: while a large write waits
// for a program that stopped reading, an interrupt is not queued behind it
// (it would never arrive): the terminal turns ^C into SIGINT, so the
// session delivers SIGINT to the foreground process group, and the
// program's exit then releases the stuck write.
func TestInterruptReachesAProgramBehindAStuckWrite(t *testing.T) {
	for round := range 5 {
		s := sh(t, stuckShell)
		waitFor(t, s, ptywright.ContainsText("ready"))
		done := make(chan error, 1)
		go func() {
			_, err := s.Perform(context.Background(), ptywright.Paste(stuckInput))
			done <- err
		}()
		waitInputHeld(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		w, err := s.Perform(ctx, ptywright.Interrupt())
		cancel()
		require.NoError(t, err, "round %d", round)
		require.True(t, w.Signalled, "round %d: delivered as a signal, not queued", round)
		waitFor(t, s, ptywright.ContainsText("got-int"))
		select {
		case err := <-done:
			require.ErrorIs(t, err, ptywright.ErrProcessExited, "round %d", round)
			require.Positive(t, inputWritten(err))
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the write outlived the program", round)
		}
		select {
		case <-s.Exited():
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the program did not exit", round)
		}
		st, ok := s.ExitStatus()
		require.True(t, ok)
		require.Equal(t, 3, st.Code)
	}
}
