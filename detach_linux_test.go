//go:build linux

package ptywright_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// startDaemonSession runs daemonize on a PTY and returns the session and
// the daemon, once it runs outside the session's group and terminal
// session.
func startDaemonSession(t *testing.T, bin string, opts ptywright.Options, args ...string) (*ptywright.Session, tuitest.Daemon) {
	t.Helper()
	opts.Program = bin
	opts.Args = args
	s, err := ptywright.Start(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	res := waitFor(t, s, ptywright.ContainsText("LAUNCHED"))
	d := tuitest.ParseDaemon(t, res.Snapshot.PlainText)
	t.Cleanup(func() { d.Kill(t) })
	require.NotEqual(t, s.Pid(), d.Pgid, "the daemon left the session's process group")
	require.NotEqual(t, s.Pid(), d.Sid, "the daemon left the session's terminal session")
	require.NotEqual(t, d.Pid, d.Sid, "the daemon is not a session leader: the second fork happened")
	f, _ := tuitest.ProcStatFields(d.Pid)
	require.NotEqual(t, strconv.Itoa(s.Pid()), f[1], "the daemon is not the child's child")
	return s, d
}

func TestCloseEndsDetachedDaemon(t *testing.T) {
	bin := tuitest.BuildDaemonize(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"launcher in the foreground", nil},
		{"launcher exited", []string{"-exit"}},
		{"daemon ignores SIGTERM", []string{"-ignore-term"}},
		{"launcher exited, daemon ignores SIGTERM", []string{"-exit", "-ignore-term"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tuitest.NoLeak(t)
			s, d := startDaemonSession(t, bin, ptywright.Options{CloseGrace: 100 * time.Millisecond}, tc.args...)
			require.True(t, d.Running())
			require.NoError(t, s.Close())
			require.False(t, d.Running(), "daemon %d outlived Close", d.Pid)
		})
	}
}

func TestKeepDetachedLeavesTheDaemonRunning(t *testing.T) {
	tuitest.NoLeak(t)
	bin := tuitest.BuildDaemonize(t)
	s, d := startDaemonSession(t, bin, ptywright.Options{CloseGrace: 100 * time.Millisecond, KeepDetached: true})
	pid := s.Pid()
	require.NoError(t, s.Close())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the child itself is ended and reaped")
	require.True(t, d.Running(), "KeepDetached: daemon %d must outlive Close", d.Pid)
	d.Kill(t)
}

// TestCloseSparesOtherDaemons: closing one session leaves another
// session's daemon and a daemon started outside ptywright running.
func TestCloseSparesOtherDaemons(t *testing.T) {
	tuitest.NoLeak(t)
	bin := tuitest.BuildDaemonize(t)
	out, err := exec.Command(bin, "-exit").Output()
	require.NoError(t, err)
	outside := tuitest.ParseDaemon(t, string(out))
	t.Cleanup(func() { outside.Kill(t) })

	opts := ptywright.Options{CloseGrace: 100 * time.Millisecond}
	a, da := startDaemonSession(t, bin, opts, "-exit")
	b, db := startDaemonSession(t, bin, opts)
	require.NotEqual(t, a.Marker(), b.Marker())

	require.NoError(t, a.Close())
	require.False(t, da.Running(), "session A's daemon outlived A's Close")
	require.True(t, db.Running(), "session B's daemon must survive A's Close")
	require.True(t, outside.Running(), "a daemon ptywright did not start must survive")

	require.NoError(t, b.Close())
	require.False(t, db.Running(), "session B's daemon outlived B's Close")
	require.True(t, outside.Running(), "a daemon ptywright did not start must survive")
}

// TestSessionMarkerIsInherited: the child sees its session's marker, and a
// session started with a marker already in its environment (ptywright
// inside a ptywright session) keeps the outer one.
func TestSessionMarkerIsInherited(t *testing.T) {
	s := sh(t, `echo "M=$`+ptywright.SessionMarkerEnv+`."; sleep 5`)
	waitFor(t, s, ptywright.ContainsText("M="+s.Marker()+"."))
	require.Regexp(t, `^ptyw-[0-9a-f]{32}$`, s.Marker())

	inner := start(t, ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `echo "M=$` + ptywright.SessionMarkerEnv + `."; sleep 5`},
		Env:     map[string]string{ptywright.SessionMarkerEnv: s.Marker()},
	})
	waitFor(t, inner, ptywright.ContainsText("M="+s.Marker()+":"+inner.Marker()+"."))
}

// TestCloseEndsScrubbedDescendant: a descendant that left the session and
// dropped its environment (so no marker) is still found through the process
// tree while its parent lives.
func TestCloseEndsScrubbedDescendant(t *testing.T) {
	tuitest.NoLeak(t)
	s, d := startScrubbed(t, `setsid env -i /bin/sleep 300 </dev/null >/dev/null 2>&1 & echo "DAEMON=$! PGID=0 SID=0"; wait`)
	sid, _ := tuitest.ProcStatFields(d.Pid)
	require.Equal(t, strconv.Itoa(d.Pid), sid[3], "sleep leads a session of its own")
	require.NoError(t, s.Close())
	require.False(t, d.Running(), "descendant %d outlived Close", d.Pid)
}

// startScrubbed runs script, which starts a process that execs sleep with
// an empty environment and prints its DAEMON= line, and returns once sleep
// runs without the session's marker.
func startScrubbed(t *testing.T, script string) (*ptywright.Session, tuitest.Daemon) {
	t.Helper()
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, CloseGrace: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	res := waitFor(t, s, ptywright.ContainsText("DAEMON="))
	d := tuitest.ParseDaemon(t, res.Snapshot.PlainText)
	t.Cleanup(func() { d.Kill(t) })
	// Wait for the exec of sleep: until then the process still has sh's
	// environment, marker included. An exec under way (of setsid or env on
	// the way) also reads as an empty environment for a moment: the
	// command line, set with the environment when an exec completes, says
	// which program it is.
	deadline := time.Now().Add(5 * time.Second)
	for {
		env, _ := os.ReadFile("/proc/" + strconv.Itoa(d.Pid) + "/environ")
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(d.Pid) + "/cmdline")
		if len(env) == 0 && strings.HasPrefix(string(cmdline), "/bin/sleep\x00") && d.Running() {
			return s, d
		}
		require.True(t, time.Now().Before(deadline), "sleep never ran with an empty environment")
		time.Sleep(5 * time.Millisecond)
	}
}

// A child that exited before Close may leave a job of its session behind,
// in a process group of its own and without the marker: only the scan for
// the session's members finds it. Close skips that scan when the session
// had no other member, so this guards that it still runs when it had one.
func TestCloseKillsScrubbedJobOfAnExitedChild(t *testing.T) {
	tuitest.NoLeak(t)
	s, d := startScrubbed(t, `set -m; (trap "" HUP TERM; exec env -i /bin/sleep 300) & echo "DAEMON=$! PGID=0 SID=0"`)
	waitFor(t, s, ptywright.ProcessExited())
	st, ok := tuitest.ProcStatFields(d.Pid)
	require.True(t, ok)
	require.Equal(t, strconv.Itoa(s.Pid()), st[3], "the job is in the child's session")
	require.NotEqual(t, strconv.Itoa(s.Pid()), st[2], "in a process group of its own")
	require.NoError(t, s.Close())
	// SIGKILL was sent; it takes effect when the job is next scheduled.
	require.Eventually(t, func() bool { return !d.Running() }, 5*time.Second, 5*time.Millisecond, "job %d outlived Close", d.Pid)
}
