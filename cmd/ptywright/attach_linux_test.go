package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"ptywright"
)

// A slow terminal skips screens: while the user's terminal takes no
// output (its output stopped, as ^S stops it), the session goes on
// changing (its sends and waits end as ever); once the terminal takes output again attach paints the
// latest screen, not each one it missed, and its status line counts the
// ones skipped. A notification that comes late makes a round skip
// nothing, so the rounds repeat until one skips.
func TestAttachSkipsFramesOnASlowTerminal(t *testing.T) {
	s := startServe(t)
	pw := func(args ...string) result {
		t.Helper()
		return runCLI(append([]string{args[0], "--socket", s.socket}, args[1:]...)...)
	}
	res := pw("start", "--rows", "5", "--cols", "40", "--", "cat")
	require.Equal(t, 0, res.code, res.stderr)
	session := strings.TrimSpace(res.stdout)
	viewer := outer(t, ptywright.Size{Rows: 8, Cols: 80}, pwBin, "attach", "--socket", s.socket, session)
	await(t, viewer, ptywright.ContainsText("read-only | Ctrl-] detaches"))

	// The terminal attach writes to, opened a second time to stop and
	// start its output.
	tty, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/1", viewer.Pid()))
	require.NoError(t, err)
	f, err := os.OpenFile(tty, os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	defer f.Close()
	flow := func(action int) {
		t.Helper()
		rc, err := f.SyscallConn()
		require.NoError(t, err)
		var ierr error
		require.NoError(t, rc.Control(func(fd uintptr) { ierr = unix.IoctlSetInt(int(fd), unix.TCXONC, action) }))
		require.NoError(t, ierr)
	}
	for round := 0; ; round++ {
		require.Less(t, round, 20, "no round skipped a screen")
		flow(unix.TCOOFF)
		for i := range 3 {
			line := fmt.Sprintf("r%d-%d", round, i)
			res = pw("send", session, "--text", line+"\r")
			require.Equal(t, 0, res.code, res.stderr)
			res = pw("wait", session, "--text", line, "--timeout", patience.String())
			require.Equal(t, 0, res.code, res.stderr)
		}
		flow(unix.TCOON)
		awaitView(t, s, viewer, session)
		if text := viewer.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText; strings.Contains(text, " skipped |") {
			t.Logf("round %d: %s", round, text[strings.LastIndex(text, "\n")+1:])
			break
		}
	}
	type_(t, viewer, "\x1d")
	require.Equal(t, 0, exitStatus(t, viewer).Code)
}
