//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
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
	"ptywright/asciicast"
	"ptywright/contract"
)

// patience bounds how long a test waits for something that should happen
// at once; it only turns a hang into a failure.
const patience = 20 * time.Second

// echoManifest is the echo test plugin, relative to this package.
const echoManifest = "../../testdata/plugins/echo/manifest.toml"

// server is a running `ptywright serve`.
type server struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
	socket string
}

// startServe runs the binary's serve with args on a socket of its own
// (unless args name one) and waits until it accepts connections.
func startServe(t *testing.T, args ...string) *server {
	t.Helper()
	dir, err := os.MkdirTemp("", "ptwcli")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(dir, "serve.sock")}
	s.cmd = exec.Command(pwBin, append([]string{"serve", "--socket", s.socket}, args...)...)
	s.cmd.Stderr = s.stderr
	s.start(t)
	waitListening(t, s, s.stderr)
	return s
}

// start starts s.cmd and has the end of the test kill and reap it if the
// test did not stop it.
func (s *server) start(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Start())
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill() // Best effort: the test failed before stopping it.
			<-s.done
		}
	})
}

// waitListening waits until s accepts connections; log is its stderr.
func waitListening(t *testing.T, s *server, log fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		nc, err := net.Dial("unix", s.socket)
		if err == nil {
			_ = nc.Close()
			return
		}
		select {
		case err := <-s.done:
			t.Fatalf("serve exited before listening: %v\nstderr:\n%s", err, log)
		default:
		}
		require.True(t, time.Now().Before(deadline), "serve did not listen on %s; stderr:\n%s", s.socket, log)
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig and returns how the server exited.
func (s *server) stop(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(sig))
	select {
	case err := <-s.done:
		return err
	case <-time.After(patience):
		t.Fatalf("serve did not exit on %v; stderr:\n%s", sig, s.stderr)
		return nil
	}
}

// call makes one call on the server's socket.
func (s *server) call(t *testing.T, method string, params any, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	res, err := call(ctx, s.socket, method, params)
	require.NoError(t, err, "%s", method)
	if out != nil {
		require.NoError(t, json.Unmarshal(res, out))
	}
}

// stdioServer is `ptywright serve --stdio` driven line by line.
type stdioServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stdout io.ReadCloser // what out reads
	stderr *bytes.Buffer
	next   int
}

func startStdio(t *testing.T, args ...string) *stdioServer {
	t.Helper()
	s := &stdioServer{stderr: new(bytes.Buffer)}
	s.cmd = exec.Command(pwBin, append([]string{"serve", "--stdio"}, args...)...)
	s.cmd.Stderr = s.stderr
	var err error
	s.in, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	s.out, s.stdout = bufio.NewReader(stdout), stdout
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill() // Best effort: the test failed before stopping it.
			_ = s.cmd.Wait()
		}
	})
	return s
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// call writes one request line and reads lines until its response.
func (s *stdioServer) call(t *testing.T, method string, params any, out any) {
	t.Helper()
	s.next++
	id := s.next
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	require.NoError(t, err)
	_, err = s.in.Write(append(req, '\n'))
	require.NoError(t, err)
	for {
		line, err := s.out.ReadBytes('\n')
		require.NoError(t, err, "stderr:\n%s", s.stderr)
		var r response
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		if string(r.ID) != strconv.Itoa(id) {
			continue
		}
		require.Nil(t, r.Error, "%s: %s", method, line)
		if out != nil {
			require.NoError(t, json.Unmarshal(r.Result, out))
		}
		return
	}
}

// end closes stdin and waits for a clean exit.
func (s *stdioServer) end(t *testing.T) {
	t.Helper()
	require.NoError(t, s.in.Close())
	rest, err := io.ReadAll(s.out)
	require.NoError(t, err)
	require.Empty(t, string(rest), "nothing after the last response")
	require.NoError(t, s.cmd.Wait(), "stderr:\n%s", s.stderr)
}

func TestServeStdioRoundTrip(t *testing.T) {
	for _, args := range [][]string{nil, {"--plugin", echoManifest}} {
		t.Run(strings.Join(append([]string{"serve", "--stdio"}, args...), " "), func(t *testing.T) {
			s := startStdio(t, args...)
			var caps struct {
				Name        string   `json:"name"`
				Version     string   `json:"version"`
				Methods     []string `json:"methods"`
				EmbeddedLua bool     `json:"embedded_lua"`
			}
			s.call(t, "server.capabilities", nil, &caps)
			require.Equal(t, "ptywright", caps.Name)
			require.Equal(t, version, caps.Version)
			require.Contains(t, caps.Methods, "adapter.start")
			require.True(t, caps.EmbeddedLua)
			var created struct{ Session string }
			s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "printf ready; sleep 600"}}, &created)
			require.Equal(t, "s1", created.Session)
			var waited struct{ Matched bool }
			s.call(t, "session.wait", map[string]any{"session": "s1", "matcher": map[string]any{"type": "contains_text", "value": "ready"}, "timeout_ms": patience.Milliseconds()}, &waited)
			require.True(t, waited.Matched)
			s.call(t, "session.close", map[string]any{"session": "s1"}, nil)

			var list struct {
				Plugins []struct{ Name string } `json:"plugins"`
			}
			s.call(t, "adapter.list", nil, &list)
			var names []string
			for _, p := range list.Plugins {
				names = append(names, p.Name)
			}
			if args != nil {
				require.Contains(t, names, "echo")
				var started struct{ Adapter, Session string }
				s.call(t, "adapter.start", map[string]any{"plugin": "echo"}, &started)
				require.Equal(t, "e1", started.Adapter)
			} else {
				require.NotContains(t, names, "echo")
			}
			s.end(t)
		})
	}
}

func TestServeStartupErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "manifest.toml")
	require.NoError(t, os.WriteFile(bad, []byte("name = \"bad\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"../x.lua\"\npermissions = []\n"), 0o600))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--stdio", "--plugin", filepath.Join(dir, "missing.toml")}, "ptywright: serve: --plugin " + filepath.Join(dir, "missing.toml") + ": manifest: stat "},
		{[]string{"serve", "--stdio", "--plugin", bad}, "ptywright: serve: --plugin " + bad + ": manifest " + bad + `: field "entrypoint"`},
		{[]string{"serve", "--stdio", "--plugin", echoManifest, "--plugin", echoManifest}, `plugin already registered: "echo"`},
		{[]string{"serve", "--socket", filepath.Join(dir, "manifest.toml")}, "path exists and is not a socket"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := runBinary(t, nil, tc.args...)
			require.Equal(t, exitFailure, res.code, res.stderr)
			require.Contains(t, res.stderr, tc.want)
			require.Empty(t, res.stdout)
		})
	}
}

// The python example client drives `serve --socket`.
func TestServeSocketPythonClient(t *testing.T) {
	python := needShell(t, "python3")
	s := startServe(t)
	out, err := exec.Command(python, "../../examples/python-client/client.py", s.socket).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "answer: 42\n")
	require.NoError(t, s.stop(t, syscall.SIGTERM))
}

// SIGINT, SIGTERM and SIGHUP each stop the server: exit 0, the socket
// removed and every child (a session's and an adapter's) killed and
// reaped.
func TestServeSignalsUnlinkAndReap(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServe(t, "--plugin", echoManifest)
			var created struct{ Session string }
			s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "trap '' TERM HUP; echo pid:$$; while :; do sleep 1; done"}}, &created)
			var started struct{ Session string }
			s.call(t, "adapter.start", map[string]any{"plugin": "echo", "program": "/bin/sh", "args": []string{"-c", "echo pid:$$; exec cat"}}, &started)
			var pids []int
			for _, id := range []string{created.Session, started.Session} {
				var res struct {
					Outcome struct{ Capture string } `json:"outcome"`
				}
				s.call(t, "session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "screen_regex", "value": `pid:(\d+)`}, "timeout_ms": patience.Milliseconds()}, &res)
				pid, err := strconv.Atoi(res.Outcome.Capture)
				require.NoError(t, err)
				require.NoError(t, syscall.Kill(pid, 0), "child %d is alive", pid)
				pids = append(pids, pid)
			}

			require.NoError(t, s.stop(t, sig), "stderr:\n%s", s.stderr)
			_, err := os.Lstat(s.socket)
			require.ErrorIs(t, err, os.ErrNotExist, "the socket is removed")
			for _, pid := range pids {
				// The server reaped them (they were its children, not
				// ours), so nothing is left under these ids.
				require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "child %d outlived the server", pid)
			}
			require.Contains(t, s.stderr.String(), "stopping")
		})
	}
}

// snapshot --svg and friends read a live session off a running server.
func TestSnapshotCommand(t *testing.T) {
	s := startServe(t, "--plugin", echoManifest)
	var created struct{ Session string }
	s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "printf '\\033[1;31mred <alert>\\033[0m & token=sk-abcdefghijklmnopqrstuvwx'; sleep 600"}, "rows": 5, "cols": 60}, &created)
	s.call(t, "session.wait", map[string]any{"session": created.Session, "matcher": map[string]any{"type": "contains_text", "value": "token"}, "timeout_ms": patience.Milliseconds()}, nil)
	var started struct{ Adapter string }
	s.call(t, "adapter.start", map[string]any{"plugin": "echo"}, &started)
	s.call(t, "adapter.turn", map[string]any{"adapter": started.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "from the adapter"}}, "wait": map[string]any{"timeout_ms": patience.Milliseconds()}}, nil)

	t.Run("svg", func(t *testing.T) {
		res := runBinary(t, nil, "snapshot", "--socket", s.socket, "--session", created.Session, "--svg")
		require.Equal(t, 0, res.code, res.stderr)
		text := svgText(t, res.stdout)
		require.Contains(t, text, "red <alert> & token=[REDACTED]")
		require.NotContains(t, res.stdout, "sk-abcdefghijklmnopqrstuvwx")
	})
	t.Run("adapter svg", func(t *testing.T) {
		res := runBinary(t, nil, "snapshot", "--socket", s.socket, "--adapter", started.Adapter, "--svg")
		require.Equal(t, 0, res.code, res.stderr)
		require.Contains(t, svgText(t, res.stdout), "from the adapter")
	})
	t.Run("adapter explain", func(t *testing.T) {
		res := runBinary(t, nil, "snapshot", "--socket", s.socket, "--adapter", started.Adapter, "--explain")
		require.Equal(t, 0, res.code, res.stderr)
		var out struct {
			PlainText   string               `json:"plain_text"`
			Cells       []any                `json:"cells"`
			Explanation contract.Explanation `json:"explanation"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &out), res.stdout)
		require.Contains(t, out.PlainText, "from the adapter")
		require.Empty(t, out.Cells)
		require.Equal(t, "echoed", out.Explanation.State)
		require.Equal(t, "echo.echoed", out.Explanation.Rule)
		require.Contains(t, out.Explanation.Evidence, `"from the adapter" typed and echoed`)
		for _, bad := range [][]string{{"--session", created.Session, "--explain"}, {"--adapter", started.Adapter, "--explain", "--svg"}} {
			res := runBinary(t, nil, append([]string{"snapshot", "--socket", s.socket}, bad...)...)
			require.Equal(t, exitUsage, res.code, res.stderr)
			require.Contains(t, res.stderr, "--explain")
		}
	})
	t.Run("json", func(t *testing.T) {
		for _, tc := range []struct {
			args  []string
			cells int
		}{
			{nil, 0},
			{[]string{"--cells"}, 5 * 60},
		} {
			res := runBinary(t, nil, append([]string{"snapshot", "--socket", s.socket, "--session", created.Session}, tc.args...)...)
			require.Equal(t, 0, res.code, res.stderr)
			var snap ptywright.ScreenSnapshot
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &snap))
			require.Contains(t, snap.PlainText, "red <alert> & token=[REDACTED]")
			require.Len(t, snap.Cells, tc.cells)
			require.Equal(t, ptywright.Size{Rows: 5, Cols: 60}, snap.Size)
		}
	})
	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			code int
			want string
		}{
			{[]string{"--socket", s.socket, "--session", "s99"}, exitFailure, `ptywright: snapshot: session.snapshot: invalid params: session: unknown session "s99" (code -32602)`},
			{[]string{"--socket", s.socket + ".none", "--session", "s1"}, exitFailure, "connect to the server"},
			{[]string{"--socket", s.socket}, exitUsage, "exactly one of --session or --adapter is required"},
			{[]string{"--socket", s.socket, "--session", "s1", "--adapter", "e1"}, exitUsage, "exactly one of --session or --adapter is required"},
			{[]string{"--socket", s.socket, "--session", "s1", "--svg", "--cells"}, exitUsage, "--svg and --cells are mutually exclusive"},
			{[]string{"--socket=", "--session", "s1"}, exitUsage, "--socket: path must not be empty"},
		} {
			res := runBinary(t, nil, append([]string{"snapshot"}, tc.args...)...)
			require.Equal(t, tc.code, res.code, res.stderr)
			require.Contains(t, res.stderr, tc.want)
			require.Empty(t, res.stdout)
		}
	})
	require.NoError(t, s.stop(t, syscall.SIGTERM))
}

// svgText parses an SVG document (failing unless it is well-formed XML
// with an <svg> root) and returns the text of its rows, one per line.
func svgText(t *testing.T, doc string) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	var rows []string
	var row strings.Builder
	depth, inText, root := 0, false, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s", doc)
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				root = el.Name.Local
			}
			depth++
			if el.Name.Local == "text" {
				inText = true
				row.Reset()
			}
		case xml.EndElement:
			depth--
			if el.Name.Local == "text" {
				inText = false
				rows = append(rows, row.String())
			}
		case xml.CharData:
			if inText {
				row.Write(el)
			}
		}
	}
	require.Equal(t, "svg", root)
	return strings.Join(rows, "\n")
}

func TestRunRecord(t *testing.T) {
	dir := t.TempDir()
	cast := filepath.Join(dir, "hi.cast")
	res := runBinary(t, nil, "run", "--record", cast, "--", "sh", "-c", "echo hi")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "hi\r\n")
	fi, err := os.Stat(cast)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	f, err := os.Open(cast)
	require.NoError(t, err)
	defer f.Close()
	rec, err := asciicast.Read(f)
	require.NoError(t, err)
	require.Equal(t, 2, rec.Header.Version)
	rows, cols := rec.Size()
	require.Equal(t, [2]int{24, 80}, [2]int{rows, cols})
	var out strings.Builder
	for _, ev := range rec.Events {
		if ev.Type == asciicast.EventOutput {
			out.WriteString(ev.Data)
		}
	}
	require.Equal(t, "hi\r\n", out.String())

	// An existing recording is never overwritten.
	res = runBinary(t, nil, "run", "--record", cast, "--", "sh", "-c", "echo again")
	require.Equal(t, exitFailure, res.code)
	require.Equal(t, fmt.Sprintf("ptywright: run: --record %q: the file exists; ptywright never overwrites a recording\n", cast), res.stderr)
}

// A stdio server stops on SIGTERM too, though stdin stays open and idle:
// exit 0, its child reaped.
func TestServeStdioStopsOnSignal(t *testing.T) {
	s := startStdio(t)
	s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo pid:$$; exec sleep 600"}}, nil)
	var res struct {
		Outcome struct{ Capture string } `json:"outcome"`
	}
	s.call(t, "session.wait", map[string]any{"session": "s1", "matcher": map[string]any{"type": "screen_regex", "value": `pid:(\d+)`}, "timeout_ms": patience.Milliseconds()}, &res)
	pid, err := strconv.Atoi(res.Outcome.Capture)
	require.NoError(t, err)
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-time.After(patience):
		t.Fatalf("serve --stdio did not exit on SIGTERM; stderr:\n%s", s.stderr)
	}
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "child %d outlived the server", pid)
}

// Without --stdio or --socket, serve listens on the per-user socket
// ($PTYWRIGHT_HOME/socket), and snapshot finds it there too.
func TestServeDefaultSocket(t *testing.T) {
	home, err := os.MkdirTemp("", "ptwhome")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	t.Setenv("PTYWRIGHT_HOME", home)
	cmd := exec.Command(pwBin, "serve")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	s := &server{cmd: cmd, stderr: &stderr, done: done, socket: filepath.Join(home, "socket")}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill() // Best effort: the test failed before stopping it.
			<-done
		}
	})
	var created struct{ Session string }
	deadline := time.Now().Add(patience)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		res, err := call(ctx, s.socket, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "printf 'default socket'; sleep 600"}})
		cancel()
		if err == nil {
			require.NoError(t, json.Unmarshal(res, &created))
			break
		}
		require.True(t, time.Now().Before(deadline), "serve did not listen on %s: %v; stderr:\n%s", s.socket, err, &stderr)
		time.Sleep(10 * time.Millisecond)
	}
	s.call(t, "session.wait", map[string]any{"session": created.Session, "matcher": map[string]any{"type": "contains_text", "value": "default socket"}, "timeout_ms": patience.Milliseconds()}, nil)
	res := runBinary(t, nil, "snapshot", "--session", created.Session)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"plain_text": "default socket"`)
	require.NoError(t, s.stop(t, syscall.SIGTERM))
	_, err = os.Lstat(s.socket)
	require.ErrorIs(t, err, os.ErrNotExist)
}
