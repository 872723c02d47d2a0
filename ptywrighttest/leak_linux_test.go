package ptywrighttest_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

// A background job that job control moved to a process group of its own,
// ignoring SIGHUP and SIGTERM, used to outlive Session.Close; Start's leak
// check caught it. Close now kills every member of the child's session, so
// the job must be gone and the child test must pass with nothing to report.

func TestChildLeak(t *testing.T) {
	childMode(t, "leak")
	s := ptywrighttest.Start(t, ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `set -m; (trap "" HUP TERM; exec sleep 60) & echo "job $!"; wait`},
	})
	res := ptywrighttest.Expect(t, s, ptywright.ScreenRegex(`job (\d+)`))
	t.Logf("background job pid %s", *res.Outcome.Capture)
}

func TestStartLeavesNoBackgroundJobBehind(t *testing.T) {
	out, err := runChild(t, "TestChildLeak", "leak", "")
	m := regexp.MustCompile(`background job pid (\d+)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	pid, convErr := strconv.Atoi(m[1])
	require.NoError(t, convErr)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // Best effort, should the test fail.
	require.NoError(t, err, out)
	require.NotContains(t, out, "left processes still running after Close")
	// Killed by Close; it may linger as a zombie until init reaps it.
	require.Eventually(t, func() bool {
		st, err := os.ReadFile("/proc/" + m[1] + "/stat")
		return err != nil || strings.Contains(string(st), ") Z ")
	}, 5*time.Second, 20*time.Millisecond, "the background job %d is killed", pid)
}
