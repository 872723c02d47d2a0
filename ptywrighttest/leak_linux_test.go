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

// Finding processes that left the program's process group needs /proc.

func TestChildLeak(t *testing.T) {
	childMode(t, "leak")
	s := ptywrighttest.Start(t, ptywright.Options{
		Program: "/bin/sh",
		// Job control puts the job in its own process group, which Close's
		// signals to the shell's group miss; it ignores SIGHUP and SIGTERM.
		Args: []string{"-c", `set -m; (trap "" HUP TERM; exec sleep 60) & echo "job $!"; wait`},
	})
	ptywrighttest.ExpectText(t, s, "job ")
}

func TestStartFailsTheTestWhenAProcessOutlivesClose(t *testing.T) {
	out, err := runChild(t, "TestChildLeak", "leak", "")
	require.Error(t, err, out)
	require.Contains(t, out, "left processes still running after Close (killed now)")
	m := regexp.MustCompile(`pid (\d+) \(sleep\)`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	pid, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	// It was killed; it may linger as a zombie until init reaps it.
	require.Eventually(t, func() bool {
		st, err := os.ReadFile("/proc/" + m[1] + "/stat")
		return err != nil || strings.Contains(string(st), ") Z ")
	}, 5*time.Second, 20*time.Millisecond, "the leaked pid %d is killed", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort, should the test have failed above.
}
