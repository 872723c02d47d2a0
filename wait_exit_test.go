package ptywright_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// Waits whose matcher looks only at the exit (process_exited, alone or
// under any/all/none) wait for the exit alone, not for every chunk of
// output: they must still answer at the exit with everything the child
// wrote before it parsed, answer at once when the exit came first, and
// give ErrSessionClosed when the session is closed under them.
func TestExitOnlyWaits(t *testing.T) {
	matchers := map[string]ptywright.Matcher{
		"process_exited": ptywright.ProcessExited(),
		"all":            ptywright.All(ptywright.ProcessExited(), ptywright.Any(ptywright.ProcessExited())),
		"not not":        ptywright.None(ptywright.None(ptywright.ProcessExited())),
	}
	for name, m := range matchers {
		t.Run(name, func(t *testing.T) {
			// A flood, then the last line, then the exit.
			s := sh(t, "i=0; while [ $i -lt 3000 ]; do echo flood line $i; i=$((i+1)); done; echo LAST-LINE")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := s.Wait(ctx, m)
			require.NoError(t, err)
			require.Contains(t, res.Snapshot.PlainText, "LAST-LINE")
			_, ok := s.ExitStatus()
			require.True(t, ok)
			// Already exited: at once.
			res, err = s.Wait(ctx, m)
			require.NoError(t, err)
			require.Contains(t, res.Snapshot.PlainText, "LAST-LINE")

			s2 := sh(t, "echo running; sleep 30")
			errc := make(chan error, 1)
			go func() {
				_, err := s2.Wait(ctx, m)
				errc <- err
			}()
			waitFor(t, s2, ptywright.ContainsText("running"))
			require.NoError(t, s2.Close())
			require.ErrorIs(t, <-errc, ptywright.ErrSessionClosed)
		})
	}
	// none(process_exited) is true while the child runs: at once.
	s := sh(t, "sleep 30")
	res, err := s.Wait(context.Background(), ptywright.None(ptywright.ProcessExited()))
	require.NoError(t, err)
	require.True(t, res.Matched)

	// After a sequence, none matches only once the screen has changed
	// since: such a wait is woken by output, not by the exit alone.
	s = sh(t, "echo ready; read line; echo got $line; sleep 30")
	waitFor(t, s, ptywright.ContainsText("ready"))
	w, err := s.Perform(context.Background(), ptywright.Text("x\n"))
	require.NoError(t, err)
	for _, m := range []ptywright.Matcher{
		ptywright.None(ptywright.ProcessExited()),
		ptywright.None(ptywright.None(ptywright.None(ptywright.ProcessExited()))),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err = s.Wait(ctx, m, ptywright.After(w.Sequence))
		cancel()
		require.NoError(t, err, "matched on the output after the input, long before the exit")
		require.Greater(t, res.Sequence, w.Sequence)
	}
}
