package ptywright_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// waitExited waits for m with a deadline far beyond the product's and returns
// the *WaitError it must end with, wrapping ErrProcessExited: a wait that
// cannot match any more says so at once rather than timing out.
func waitExited(t *testing.T, s *ptywright.Session, m ptywright.Matcher, opts ...ptywright.WaitOption) *ptywright.WaitError {
	t.Helper()
	return requireExited(t, <-waitLong(s, m, opts...))
}

// waitLong starts a wait for m with a minute's deadline, far beyond what
// any answer here takes.
func waitLong(s *ptywright.Session, m ptywright.Matcher, opts ...ptywright.WaitOption) <-chan error {
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := s.Wait(ctx, m, opts...)
		errc <- err
	}()
	return errc
}

func requireExited(t *testing.T, err error) *ptywright.WaitError {
	t.Helper()
	var we *ptywright.WaitError
	require.True(t, errors.As(err, &we), "%v", err)
	require.ErrorIs(t, err, ptywright.ErrProcessExited)
	require.NotErrorIs(t, err, ptywright.ErrTimeout)
	return we
}

// TestWaitOnAnExitedProgramSaysSo: once the program has exited and its
// output is all read, a wait its final screen and transcript do not
// satisfy, and no stability window can, ends with ErrProcessExited and the
// final screen, whether it began before the exit or after. A window still
// to run, or a match on the last output, still answers.
func TestWaitOnAnExitedProgramSaysSo(t *testing.T) {
	t.Run("began after the exit", func(t *testing.T) {
		s := sh(t, "echo goodbye")
		waitFor(t, s, ptywright.ProcessExited())
		we := waitExited(t, s, ptywright.ContainsText("never printed"))
		require.Contains(t, we.Snapshot.PlainText, "goodbye")
		require.Contains(t, we.TranscriptTail, "goodbye")
		es, ok := s.ExitStatus()
		require.True(t, ok)
		require.Equal(t, 0, es.Code)
	})
	t.Run("began before the exit", func(t *testing.T) {
		s := sh(t, "echo started; read line; echo goodbye $line; exit 3")
		waitFor(t, s, ptywright.ContainsText("started"))
		errc := waitLong(s, ptywright.ContainsText("never printed"))
		tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
		send(t, s, ptywright.Text("now\n"))
		we := requireExited(t, <-errc)
		require.Contains(t, we.Snapshot.PlainText, "goodbye now", "the final screen, not the one the wait began on")
	})
	t.Run("stability", func(t *testing.T) {
		s := sh(t, "echo goodbye")
		waitFor(t, s, ptywright.ProcessExited())
		// A window still to run answers once it has.
		res := waitFor(t, s, ptywright.All(ptywright.ContainsText("goodbye"), ptywright.ScreenStable(50)))
		require.True(t, res.Matched)
		// Stability alone cannot make text appear.
		waitExited(t, s, ptywright.All(ptywright.ContainsText("never printed"), ptywright.ScreenStable(50)))
		// Any branch that can still come keeps the wait going.
		res = waitFor(t, s, ptywright.Any(ptywright.ContainsText("never printed"), ptywright.ScreenStable(50)))
		require.NotNil(t, res.Outcome)
	})
	t.Run("after the last change", func(t *testing.T) {
		s := sh(t, "echo goodbye")
		waitFor(t, s, ptywright.ProcessExited())
		// On screen, but held back until a change after seq, and none will come.
		we := waitExited(t, s, ptywright.ContainsText("goodbye"), ptywright.After(s.Sequence()))
		require.Contains(t, we.Snapshot.PlainText, "goodbye")
	})
	t.Run("the exit alone", func(t *testing.T) {
		// A matcher that reads nothing but the exit has its answer at the
		// exit, whatever the job the shell left still writes.
		fifo := filepath.Join(t.TempDir(), "go")
		s := sh(t, fmt.Sprintf("trap '' HUP; mkfifo %q; (read line < %q) & echo shell gone", fifo, fifo))
		waitFor(t, s, ptywright.ProcessExited())
		waitExited(t, s, ptywright.None(ptywright.ProcessExited()))
		f, err := os.OpenFile(fifo, os.O_RDWR, 0) // lets the job end
		require.NoError(t, err)
		_, err = f.WriteString("done\n")
		require.NoError(t, err)
		waitExited(t, s, ptywright.ContainsText("never printed")) // once the terminal has closed
		require.NoError(t, f.Close())
	})
	t.Run("output after the exit", func(t *testing.T) {
		// The shell exits while the job it left, deaf to the hang-up (the
		// shell ignores it before the fork, so that the job cannot get it
		// first), keeps the terminal open and writes later, once the test
		// writes to its fifo: what it writes still answers, and the wait
		// for what never comes ends once the terminal has closed.
		fifo := filepath.Join(t.TempDir(), "go")
		s := sh(t, fmt.Sprintf("trap '' HUP; mkfifo %q; (read line < %q; echo late $line) & echo shell gone", fifo, fifo))
		waitFor(t, s, ptywright.ProcessExited())
		errc := waitLong(s, ptywright.ContainsText("never printed"))
		// Read-write: the open does not wait for the job to open it.
		f, err := os.OpenFile(fifo, os.O_RDWR, 0)
		require.NoError(t, err)
		_, err = f.WriteString("output\n")
		require.NoError(t, err)
		waitFor(t, s, ptywright.ContainsText("late output"))
		require.NoError(t, f.Close()) // Not before the job has read the line.
		we := requireExited(t, <-errc)
		require.Contains(t, we.Snapshot.PlainText, "late output")
	})
}

// TestWaitForTheLastOutputBeforeTheExit: the output a program writes just
// before it exits is read before the wait can conclude it will not come.
// A wait for it, begun while the program runs, matches every time, also
// when, as an agent's after its input, it sees only what followed the
// input (After).
func TestWaitForTheLastOutputBeforeTheExit(t *testing.T) {
	for i := range 40 {
		s := sh(t, fmt.Sprintf("stty -echo; echo ready; read line; i=0; while [ $i -lt 200 ]; do echo flood $i; i=$((i+1)); done; printf 'LAST-%d'", i))
		want := ptywright.ContainsText(fmt.Sprintf("LAST-%d", i))
		if i%2 == 0 {
			errc := waitLong(s, want)
			send(t, s, ptywright.Text("go\n"))
			requireMatched(t, s, <-errc, "round %d", i)
		} else {
			waitFor(t, s, ptywright.ContainsText("ready"))
			w, err := s.Perform(context.Background(), ptywright.Text("go\n"))
			require.NoError(t, err)
			requireMatched(t, s, <-waitLong(s, want, ptywright.After(w.Sequence)), "round %d after %d", i, w.Sequence)
		}
		require.NoError(t, s.Close())
	}
}

// requireMatched fails with the wait's evidence (its screen and transcript
// tail) when err is not nil.
func requireMatched(t *testing.T, s *ptywright.Session, err error, format string, args ...any) {
	t.Helper()
	var we *ptywright.WaitError
	if errors.As(err, &we) {
		st, _ := s.ExitStatus()
		t.Fatalf("%s: %v\nexit: %+v\n%s\nscreen:\n%s\ntranscript tail:\n%q", fmt.Sprintf(format, args...), err, st, ptywright.ReaderEnd(s), we.Snapshot.PlainText, we.TranscriptTail)
	}
	require.NoError(t, err, append([]any{format}, args...)...)
}
