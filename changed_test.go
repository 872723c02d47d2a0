package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// TestChangedClosesOnOutputAndExit follows a session the way an event-driven
// observer does: every closed channel comes with a larger sequence or the
// exit, and the exit itself closes the last channel.
func TestChangedClosesOnOutputAndExit(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `read x; printf 'got %s' "$x"`)
	seq0, ch := s.Changed()
	send(t, s, ptywright.Text("hi\r"))
	for {
		<-ch
		var seq uint64
		seq, ch = s.Changed()
		require.GreaterOrEqual(t, seq, seq0)
		select {
		case <-s.Exited():
			require.Contains(t, s.Transcript(ptywright.NoRedaction()), "got hi")
			require.Greater(t, seq, seq0)
			return
		default:
		}
	}
}
