package ptywright_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestOutputAfterTheTerminalIsReopened: a Linux PTY master reads EIO
// whenever no file has its slave open, also while the program runs, and
// reads again once the slave is reopened (/dev/tty does). A program that
// closes its terminal and opens it again, as this one does (and as the
// kernel briefly lets a live shell look, which lost a flood's output once
// in a few thousand runs), keeps its output: the reader stops at EIO only
// after the child has exited.
func TestOutputAfterTheTerminalIsReopened(t *testing.T) {
	for i := range 3 {
		s := sh(t, "exec </dev/null >/dev/null 2>&1; sleep 0.3; echo reopened-$((40+2)) >/dev/tty; sleep 0.2")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.Wait(ctx, ptywright.ContainsText("reopened-42"))
		cancel()
		requireMatched(t, s, err, "round %d", i)
		waitFor(t, s, ptywright.ProcessExited())
		require.NoError(t, s.Close())
	}
}
