//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// The script client drives a session of a real server over its socket:
// start, wait, send, wait --after, snapshot, list, close, with the exit
// codes a script branches on (0 done, 1 timeout or no match, 2 error).
func TestScriptClientSession(t *testing.T) {
	// serve, given no socket, listens on $PTYWRIGHT_SOCKET.
	sockDir, err := os.MkdirTemp("", "ptwcli")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	s := &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(sockDir, "env.sock")}
	s.cmd = exec.Command(pwBin, "serve")
	s.cmd.Env = append(os.Environ(), socketEnv+"="+s.socket)
	s.cmd.Stderr = s.stderr
	s.start(t)
	waitListening(t, s, s.stderr)
	pw := func(args ...string) result {
		t.Helper()
		return runCLI(append([]string{args[0], "--socket", s.socket}, args[1:]...)...)
	}
	res := pw("start", "--rows", "6", "--cols", "40", "--env", "GREETING=hi", "--", "sh", "-c", `echo "$GREETING from $(basename "$PWD")"; exec cat`)
	require.Equal(t, 0, res.code, res.stderr)
	id := strings.TrimSpace(res.stdout)
	require.Regexp(t, `^s\d+$`, id)

	// The program ran in the client's directory, with --env.
	res = pw("wait", id, "--regex", `(\S+) from (\S+)`, "--timeout", patience.String())
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "hi\n", res.stdout, "the regex's first group")
	res = pw("snapshot", id)
	require.Equal(t, 0, res.code, res.stderr)
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, "hi from "+filepath.Base(wd)+"\n", res.stdout)

	res = pw("send", id, "--text", "abc", "--key", "enter", "--paste", "def", "--key", "enter")
	require.Equal(t, 0, res.code, res.stderr)
	seq, err := strconv.ParseInt(strings.TrimSpace(res.stdout), 10, 64)
	require.NoError(t, err, "send prints the sequence: %q", res.stdout)
	res = pw("wait", id, "--text", "def", "--after", strconv.FormatInt(seq, 10), "--stable", "50ms", "--timeout", patience.String())
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "def\n", res.stdout)

	res = pw("snapshot", id, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var snap ptywright.ScreenSnapshot
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &snap), res.stdout)
	require.Contains(t, snap.PlainText, "\nabc\n", "cat's echo of it, or the terminal's")
	require.Empty(t, snap.Cells)
	require.Equal(t, ptywright.Size{Rows: 6, Cols: 40}, snap.Size)

	// A timeout is 1, with the last screen on stderr, or the error object
	// with --json.
	res = pw("wait", id, "--text", "never", "--timeout", "100ms")
	require.Equal(t, exitNoMatch, res.code, res.stderr)
	require.Empty(t, res.stdout)
	require.Contains(t, res.stderr, "ptywright wait: timeout")
	require.Contains(t, res.stderr, "last screen:\n  | hi from")
	res = pw("wait", id, "--text", "never", "--timeout", "100ms", "--json")
	require.Equal(t, exitNoMatch, res.code, res.stderr)
	var rerr struct {
		Code int
		Data struct{ Snapshot ptywright.ScreenSnapshot }
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rerr), res.stdout)
	require.Equal(t, -32001, rerr.Code)
	require.Contains(t, rerr.Data.Snapshot.PlainText, "def")

	// $PTYWRIGHT_SOCKET stands for --socket.
	t.Setenv(socketEnv, s.socket)
	res = runCLI("list")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, id+"\n", res.stdout)

	res = pw("close", id)
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `^closed: (exit code \d+|killed by signal \w+)\n$`, res.stdout)

	// A program that exited can no longer show the text: 1 at once, not at
	// the timeout; --exited matches.
	res = pw("start", "--", "sh", "-c", "echo bye")
	require.Equal(t, 0, res.code, res.stderr)
	gone := strings.TrimSpace(res.stdout)
	res = pw("wait", gone, "--exited", "--timeout", patience.String())
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "exit code 0\n", res.stdout)
	res = pw("wait", gone, "--text", "never", "--timeout", "24h")
	require.Equal(t, exitNoMatch, res.code, res.stderr)
	require.Contains(t, res.stderr, "bye")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"close", id}, `unknown session "` + id + `"`},
		{[]string{"send", "s999", "--text", "x"}, `unknown session "s999"`},
		{[]string{"send", id, "--key", "Enter"}, `unknown key "Enter"`},
		{[]string{"send", id}, "nothing to send"},
		{[]string{"wait", id}, "nothing to wait for"},
		{[]string{"wait", id, "--text", "a", "--regex", "b"}, "mutually exclusive"},
		{[]string{"wait", id, "--regex", "("}, "--regex"},
		{[]string{"start", "--rows", "0", "--", "true"}, "--rows: must be between 1 and 10000"},
		{[]string{"start"}, "no program given"},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},
	} {
		res := pw(tc.args...)
		require.Equal(t, exitUsage, res.code, "%v: %s", tc.args, res.stderr)
		require.Contains(t, res.stderr, tc.want, "%v", tc.args)
		require.Empty(t, res.stdout, "%v", tc.args)
	}
	require.NoError(t, s.stop(t, syscall.SIGTERM))

	// No server: 2, with one line naming the socket.
	res = runCLI("wait", "--socket", s.socket, "s1", "--text", "x")
	require.Equal(t, exitUsage, res.code, res.stderr)
	require.Equal(t, "ptywright wait: cannot connect to the server at "+s.socket+": connect: no such file or directory (is \"ptywright serve\" running there? --socket or $PTYWRIGHT_SOCKET names another)\n", res.stderr)
}

// adapter start, state, send, turn and close drive the echo plugin.
func TestScriptClientAdapter(t *testing.T) {
	s := startServe(t, "--plugin", echoManifest)
	pw := func(args ...string) result {
		t.Helper()
		return runCLI(append([]string{"adapter", args[0], "--socket", s.socket}, args[1:]...)...)
	}
	res := pw("start", "echo")
	require.Equal(t, 0, res.code, res.stderr)
	id := strings.TrimSpace(res.stdout)
	require.Regexp(t, `^e\d+$`, id)
	res = pw("state", id)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "idle\n", res.stdout)
	res = pw("send", id, "send_text", "--param", "text=hello")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "confirmed\techoed\n", res.stdout)
	res = pw("turn", id, "send_text", "--params", `{"text":"answer 42"}`, "--timeout", patience.String())
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "echoed\n", res.stdout)
	res = pw("state", id, "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var st struct{ State ptywright.StateSnapshot }
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &st), res.stdout)
	require.Contains(t, st.State.Evidence, "answer 42")
	// A turn that cannot end in time (the plugin's turn matcher wants the
	// screen stable for 300ms; the timeout bounds the send too): 1.
	res = pw("turn", id, "send_text", "--param", "text=late", "--timeout", "100ms")
	require.Equal(t, exitNoMatch, res.code, res.stderr)
	require.Contains(t, res.stderr, "ptywright adapter turn: timeout")

	res = pw("send", id, "no_such_intent")
	require.Equal(t, exitUsage, res.code, res.stderr)
	require.Contains(t, res.stderr, `unknown intent "no_such_intent"`)
	res = pw("close", id)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "closed")
	res = pw("state", id)
	require.Equal(t, exitUsage, res.code, res.stderr)
	require.NoError(t, s.stop(t, syscall.SIGTERM))
}

// examples/drive-vim.sh drives vim through the CLI, as a user's script
// would, and checks its exit codes on the way.
func TestDriveVimExample(t *testing.T) {
	if _, err := exec.LookPath("vim"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("vim is not installed: run scripts/install-test-deps.sh")
		}
		t.Skip("vim is not installed: run scripts/install-test-deps.sh")
	}
	bash := needShell(t, "bash")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "../../examples/drive-vim.sh")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(pwBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{
		`vim says: "notes.txt" [New] 1L, 16B written`,
		"notes.txt holds: Hello from bash",
		"a wait that timed out exited 1",
		"a send to an unknown session exited 2",
		"vim: exit code 0",
		"closed: exit code 0",
		"all checks passed",
	} {
		require.Contains(t, string(out), want)
	}
}
