//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		script string
		code   int
	}{
		{"success", "exit 0", 0},
		{"exit code", "exit 7", 7},
		{"high exit code", "exit 200", 200},
		{"killed by SIGTERM", "kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"killed by SIGKILL", "kill -KILL $$", 128 + int(syscall.SIGKILL)},
		{"killed by SIGINT", "kill -INT $$", 128 + int(syscall.SIGINT)},
		// Not one of ptywright's named signals: reported by its
		// description, mapped back to the number.
		{"killed by SIGALRM", "kill -ALRM $$", 128 + int(syscall.SIGALRM)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runBinary(t, nil, "run", "--", "/bin/sh", "-c", tc.script)
			require.Equal(t, tc.code, res.code, "stdout %q stderr %q", res.stdout, res.stderr)
			require.Empty(t, res.stderr)
		})
	}
}

func TestRunOutputAndInput(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"output", "", []string{"/bin/sh", "-c", "echo hi"}, "hi\r\n"},
		{"arguments kept apart", "", []string{"/bin/sh", "-c", `printf '[%s]' "$@"`, "sh", "a b", "", "c"}, "[a b][][c]"},
		{"flags after the command are its own", "", []string{"/bin/sh", "-c", "echo $1", "sh", "--rows"}, "--rows\r\n"},
		{"default size", "", []string{"stty", "size"}, "24 80\r\n"},
		{"piped stdin reaches the child, then EOF", "hello\nworld\n", []string{"/bin/sh", "-c", `got=$(cat); echo "[$got]"`}, "[hello\r\nworld]"},
		{"partial last line still ends in EOF", "hello", []string{"/bin/sh", "-c", `got=$(cat); echo "[$got]"`}, "[hello]"},
		{"empty stdin is EOF", "", []string{"/bin/sh", "-c", `got=$(cat); echo "[$got]"`}, "[]"},
		{"bytes pass unchanged", "a\tb\n", []string{"od", "-An", "-c"}, `a  \t   b  \n`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runBinary(t, strings.NewReader(tc.stdin), append([]string{"run", "--"}, tc.args...)...)
			require.Equal(t, 0, res.code, "stderr %q", res.stderr)
			require.Contains(t, res.stdout, tc.want)
			require.Empty(t, res.stderr)
		})
	}
}

func TestRunSizeFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--rows", "10", "--cols", "33"}, "10 33\r\n"},
		{[]string{"--rows", "10"}, "10 80\r\n"},
		{[]string{"-cols=100"}, "24 100\r\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append(append([]string{"run"}, tc.args...), "--", "stty", "size")
			res := runBinary(t, nil, args...)
			require.Equal(t, 0, res.code, "stderr %q", res.stderr)
			require.Equal(t, tc.want, res.stdout)
		})
	}
}

func TestRunStartFailure(t *testing.T) {
	res := runBinary(t, nil, "run", "--", "/nonexistent/program")
	require.Equal(t, exitFailure, res.code)
	require.Contains(t, res.stderr, "ptywright: run: start ")
	require.Equal(t, 1, strings.Count(res.stderr, "ptywright:"), res.stderr)
	require.Contains(t, res.stderr, "/nonexistent/program")
}

// startBinary starts the binary with stdout on a pipe.
func startBinary(t *testing.T, args ...string) (cmd *exec.Cmd, stdout io.Closer, r *bufio.Reader) {
	t.Helper()
	// The timeout only keeps a hang from stalling the suite.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd = exec.CommandContext(ctx, pwBin, args...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // Best effort: normally it has exited.
		_ = cmd.Wait()
	})
	return cmd, out, bufio.NewReader(out)
}

func readUntil(t *testing.T, r *bufio.Reader, marker string) {
	t.Helper()
	var seen strings.Builder
	for !strings.Contains(seen.String(), marker) {
		b, err := r.ReadByte()
		require.NoError(t, err, "output so far: %q", seen.String())
		seen.WriteByte(b)
	}
}

func exitCodeOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	return ee.ExitCode()
}

// A signal to run goes to the child; run reports how the child took it.
func TestRunForwardsSignals(t *testing.T) {
	tests := []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGTERM, 128 + int(syscall.SIGTERM)},
		{syscall.SIGINT, 128 + int(syscall.SIGINT)},
		{syscall.SIGHUP, 128 + int(syscall.SIGHUP)},
	}
	for _, tc := range tests {
		t.Run(tc.sig.String(), func(t *testing.T) {
			cmd, _, out := startBinary(t, "run", "--", "/bin/sh", "-c", "echo ready; exec sleep 60")
			readUntil(t, out, "ready")
			require.NoError(t, cmd.Process.Signal(tc.sig))
			require.Equal(t, tc.code, exitCodeOf(t, cmd))
		})
	}
}

// A child that survives the forwarded signal is ended by the second one.
func TestRunSecondSignalEndsChild(t *testing.T) {
	cmd, _, out := startBinary(t, "run", "--", "/bin/sh", "-c", `trap "echo caught" TERM; trap "" HUP; echo ready; while :; do sleep 1; done`)
	readUntil(t, out, "ready")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	// Signals sent back to back may merge into one: wait for the first.
	readUntil(t, out, "caught")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 128+int(syscall.SIGKILL), exitCodeOf(t, cmd))
}

// Closing run's stdout ends run and its child instead of leaving them
// writing into nowhere.
func TestRunStdoutClosed(t *testing.T) {
	cmd, stdout, out := startBinary(t, "run", "--", "yes")
	readUntil(t, out, "y\r\ny\r\n")
	require.NoError(t, stdout.Close())
	require.Equal(t, 128+int(syscall.SIGPIPE), exitCodeOf(t, cmd))
}
