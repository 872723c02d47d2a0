//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// daemonRunning reports whether pid runs (a zombie does not) and has the
// start time start.
func daemonRunning(pid int, start string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) >= 20 && f[19] == start && f[0] != "Z" && f[0] != "X"
}

func daemonStart(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// TestServeExitEndsDetachedDaemons: `ptywright serve` stopping (SIGTERM on
// the socket server, end of stdin on --stdio) ends the daemons its sessions'
// and adapters' programs detached with setsid and a double fork, as Codex's
// app-server daemon does.
func TestServeExitEndsDetachedDaemons(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "daemonize")
	b, err := exec.Command("go", "build", "-o", bin, "../../testdata/daemonize").CombinedOutput()
	require.NoError(t, err, "%s", b)
	daemonLine := regexp.MustCompile(`DAEMON=(\d+)`)

	type caller func(t *testing.T, method string, params any, out any)
	launch := func(t *testing.T, call caller) (pids []int, starts []string) {
		var created, started struct{ Session string }
		call(t, "session.create", map[string]any{"program": bin, "args": []string{"-exit"}}, &created)
		call(t, "adapter.start", map[string]any{"plugin": "echo", "program": bin}, &started)
		for _, id := range []string{created.Session, started.Session} {
			var res struct {
				Snapshot struct {
					PlainText string `json:"plain_text"`
				} `json:"snapshot"`
			}
			call(t, "session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "contains_text", "value": "LAUNCHED"}, "timeout_ms": patience.Milliseconds()}, &res)
			m := daemonLine.FindStringSubmatch(res.Snapshot.PlainText)
			require.NotNil(t, m, "%q", res.Snapshot.PlainText)
			pid, _ := strconv.Atoi(m[1])
			start := daemonStart(pid)
			require.True(t, daemonRunning(pid, start), "daemon %d runs", pid)
			t.Cleanup(func() {
				if daemonRunning(pid, start) {
					_ = syscall.Kill(pid, syscall.SIGKILL) // The test's own daemon, should the test fail.
				}
			})
			pids, starts = append(pids, pid), append(starts, start)
		}
		return pids, starts
	}

	t.Run("socket, SIGTERM", func(t *testing.T) {
		s := startServe(t, "--plugin", echoManifest)
		pids, starts := launch(t, s.call)
		require.NoError(t, s.stop(t, syscall.SIGTERM), "stderr:\n%s", s.stderr)
		for i, pid := range pids {
			require.False(t, daemonRunning(pid, starts[i]), "daemon %d outlived the server", pid)
		}
	})
	t.Run("stdio, end of input", func(t *testing.T) {
		s := startStdio(t, "--plugin", echoManifest)
		pids, starts := launch(t, s.call)
		s.end(t)
		for i, pid := range pids {
			require.False(t, daemonRunning(pid, starts[i]), "daemon %d outlived the server", pid)
		}
	})
}
