package ptywright_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// A stable wait issued right after input answers with the screen the input
// produced, not with the quiet screen from before it.
func TestStableAfterInputSeesThePostInputScreen(t *testing.T) {
	tuitest.NoLeak(t)
	for i := range 5 {
		s := sh(t, `stty -echo; printf 'ready> '; read l; echo "got $l"; sleep 30`)
		waitFor(t, s, ptywright.ContainsText("ready> "))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		w, err := s.Perform(ctx, ptywright.Text("hello\r"))
		require.NoError(t, err)
		require.Equal(t, len("hello\r"), w.Bytes)
		// The program answers at once; the window leaves it a second even on
		// a loaded machine. Without After the wait would answer at once too,
		// with the quiet screen from before the input.
		res, err := s.Wait(ctx, ptywright.ScreenStable(time.Second), ptywright.After(w.Sequence))
		cancel()
		require.NoError(t, err, "run %d", i)
		require.Contains(t, res.Snapshot.PlainText, "got hello", "run %d: the wait answered with the screen from before the input", i)
		require.Greater(t, res.Sequence, w.Sequence)
	}
}

// Without After the same wait may answer at once; with it a text wait for
// text already on screen waits for the screen to change.
func TestAfterHoldsTextMatchersUntilAChange(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `printf 'ready> '; read l; echo "got $l"; sleep 30`)
	waitFor(t, s, ptywright.ContainsText("ready> "))
	seq := s.Sequence()

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	_, err := s.Wait(ctx, ptywright.ContainsText("ready"), ptywright.After(seq))
	cancel()
	require.ErrorIs(t, err, ptywright.ErrTimeout, "nothing changed after seq: the old screen must not match")

	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := s.Perform(ctx, ptywright.Text("x\r"))
	require.NoError(t, err)
	res, err := s.Wait(ctx, ptywright.ContainsText("ready"), ptywright.After(w.Sequence))
	require.NoError(t, err)
	require.Greater(t, res.Sequence, w.Sequence)

	// An exit is news whenever it comes.
	e := sh(t, "exit 0")
	waitFor(t, e, ptywright.ProcessExited())
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	_, err = e.Wait(ctx2, ptywright.ProcessExited(), ptywright.After(e.Sequence()))
	require.NoError(t, err)
}

// A program that redraws the same frame every 50 ms, or moves the cursor
// away and back, is stable to a person, and so to screen_stable.
func TestRedrawingTheSameFrameIsStable(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `while :; do printf '\033[H\033[2Jframe\033[5;5H\033[1;6H'; sleep 0.05; done`)
	waitFor(t, s, ptywright.ContainsText("frame"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.Wait(ctx, ptywright.ScreenStable(400*time.Millisecond))
	require.NoError(t, err, "a constant frame never became stable")
	require.GreaterOrEqual(t, res.StableFor, 400*time.Millisecond)
	// Output kept coming all along: the bytes changed, the screen did not.
	require.Eventually(t, func() bool { return s.Sequence() > res.Sequence+2 }, 5*time.Second, 10*time.Millisecond)
	require.Greater(t, s.StableFor(), 400*time.Millisecond)

	// A visible change still resets it.
	c := sh(t, `i=0; while :; do i=$((i+1)); printf '\033[H%d' $i; sleep 0.05; done`)
	waitFor(t, c, ptywright.ContainsText("3"))
	ctx3, cancel3 := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel3()
	_, err = c.Wait(ctx3, ptywright.ScreenStable(300*time.Millisecond))
	require.ErrorIs(t, err, ptywright.ErrTimeout, "a counter that changes every 50 ms is not stable")
}

// A prompt's trailing space is on the screen as a person sees it: the cursor
// sits after it.
func TestPromptWithTrailingSpaceMatches(t *testing.T) {
	tuitest.NoLeak(t)
	for _, prompt := range []string{">>> ", "P$ ", "name:   "} {
		s := sh(t, "printf '"+prompt+"'; read l; sleep 30")
		res := waitFor(t, s, ptywright.ContainsText(prompt))
		require.Equal(t, 0, *res.Outcome.Row)
		require.Equal(t, 0, *res.Outcome.Col)
		require.Equal(t, strings.TrimRight(prompt, " "), res.Snapshot.PlainText, "plain_text stays trimmed")
		waitFor(t, s, ptywright.ScreenRegex(`\$ $|>>> $|:   $`))
	}
	// Blanks after the cursor are not text.
	s := sh(t, `printf 'a \033[1;1H'; sleep 30`)
	waitFor(t, s, ptywright.CursorAt(0, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Wait(ctx, ptywright.ContainsText("a "))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
}
