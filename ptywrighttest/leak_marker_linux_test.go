//go:build linux

package ptywrighttest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestSurvivorsFindsMarkedDaemon: a daemon that left the session's group
// and session is found by its marker, and killSurvivors ends it. The
// session keeps it (KeepDetached) so that it is there to be found.
func TestSurvivorsFindsMarkedDaemon(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{
		Program:      "/bin/sh",
		Args:         []string{"-c", `setsid sh -c 'echo "daemon $$"; exec sleep 60 </dev/null >/dev/null 2>&1' & wait`},
		KeepDetached: true,
		CloseGrace:   100 * time.Millisecond,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	res, err := s.Wait(ctx, ptywright.ScreenRegex(`daemon (\d+)`))
	require.NoError(t, err)
	daemon, err := strconv.Atoi(*res.Outcome.Capture)
	require.NoError(t, err)
	pid := s.Pid()
	require.NoError(t, s.Close())

	require.Empty(t, survivors(pid, "", 0), "without the marker the daemon is out of sight")
	left := survivors(pid, s.Marker(), 0)
	require.Len(t, left, 1)
	require.True(t, strings.HasPrefix(left[0], "pid "+strconv.Itoa(daemon)+" "), "%q", left)
	killSurvivors(pid, s.Marker())
	require.Empty(t, survivors(pid, s.Marker(), leakGrace), "killSurvivors ends the daemon")
}
