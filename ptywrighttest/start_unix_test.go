//go:build unix

package ptywrighttest_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

func TestStartCleanupClosesTheProgram(t *testing.T) {
	var pid int
	t.Run("session", func(t *testing.T) {
		s := ptywrighttest.Start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "sleep 60"}})
		pid = s.Pid()
	})
	require.Error(t, syscall.Kill(pid, 0), "the child is gone once the subtest's cleanup ran")
}
