//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeSIGTERMAnswersPendingWait is shutdown with a wait pending, 20 times on a
// socket and 5 on stdio: a client with a session.wait pending when
// `ptywright serve` gets SIGTERM reads the wait's answer, -32005 with its
// evidence, before the stream ends (it read a bare EOF in 5 of 20 trials).
func TestServeSIGTERMAnswersPendingWait(t *testing.T) {
	const socketTrials, stdioTrials = 20, 5
	for i := range socketTrials {
		t.Run("socket/"+strconv.Itoa(i), func(t *testing.T) {
			s := startServe(t)
			nc, err := net.Dial("unix", s.socket)
			require.NoError(t, err)
			defer nc.Close()
			require.NoError(t, nc.SetDeadline(time.Now().Add(patience)))
			m := pendingWait(t, nc, bufio.NewReader(nc), func() {
				require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
			})
			requireCancelledWait(t, m)
			select {
			case err := <-s.done:
				require.NoError(t, err, "stderr:\n%s", s.stderr)
			case <-time.After(patience):
				t.Fatalf("serve did not exit on SIGTERM; stderr:\n%s", s.stderr)
			}
		})
	}
	for i := range stdioTrials {
		t.Run("stdio/"+strconv.Itoa(i), func(t *testing.T) {
			s := startStdio(t)
			m := pendingWait(t, s.in, s.out, func() {
				require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
			})
			requireCancelledWait(t, m)
			require.NoError(t, s.cmd.Wait(), "stderr:\n%s", s.stderr)
		})
	}
}

// pendingWait creates a session, sends a wait that never matches and a
// session.list behind it (whose answer says the wait was read and
// started), calls stop, and returns the wait's answer, or fails if the
// stream ends without one.
func pendingWait(t *testing.T, w io.Writer, r *bufio.Reader, stop func()) response {
	t.Helper()
	read := func(id string) response {
		t.Helper()
		for {
			line, err := r.ReadBytes('\n')
			require.NoError(t, err, "the stream ended without the answer to %s", id)
			var m response
			require.NoError(t, json.Unmarshal(line, &m), "%s", line)
			if string(m.ID) == id {
				return m
			}
		}
	}
	_, err := io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"program":"/bin/sh","args":["-c","exec sleep 60"]}}`+"\n")
	require.NoError(t, err)
	created := read("1")
	require.Nil(t, created.Error)
	var res struct{ Session string }
	require.NoError(t, json.Unmarshal(created.Result, &res))
	_, err = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":%q,"matcher":{"type":"contains_text","value":"never"},"timeout_ms":30000}}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"session.list"}`+"\n", res.Session)
	require.NoError(t, err)
	require.Nil(t, read("3").Error)
	stop()
	return read("2")
}

func requireCancelledWait(t *testing.T, m response) {
	t.Helper()
	require.NotNil(t, m.Error, "the wait succeeded: %s", m.Result)
	require.Equal(t, int64(-32005), m.Error.Code, m.Error.Message)
	require.Contains(t, string(m.Error.Data), `"snapshot"`, "the evidence")
}

// TestServeStdioClientGone: a stdio client that dies (stdin and stdout
// closed) with a wait pending while notifications stream does not kill
// `serve --stdio` with SIGPIPE: the server sees the client gone, cancels
// the wait, exits 0 and reaps the session's child.
func TestServeStdioClientGone(t *testing.T) {
	s := startStdio(t)
	s.call(t, "server.set_notifications", map[string]any{"enabled": true}, nil)
	var created struct{ Session string }
	s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", `echo "pid:$$"; while :; do echo tick; sleep 0.01; done`}}, &created)
	var waited struct {
		Outcome struct {
			Capture *string `json:"capture"`
		} `json:"outcome"`
	}
	s.call(t, "session.wait", map[string]any{"session": created.Session, "matcher": map[string]any{"type": "screen_regex", "value": `pid:(\d+)`}, "timeout_ms": 10000}, &waited)
	require.NotNil(t, waited.Outcome.Capture)
	pid, err := strconv.Atoi(*waited.Outcome.Capture)
	require.NoError(t, err)
	_, err = io.WriteString(s.in, `{"jsonrpc":"2.0","id":99,"method":"session.wait","params":{"session":"`+created.Session+`","matcher":{"type":"contains_text","value":"never"},"timeout_ms":30000}}`+"\n")
	require.NoError(t, err)

	start := time.Now()
	require.NoError(t, s.stdout.Close())
	require.NoError(t, s.in.Close())
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-time.After(patience):
		t.Fatalf("serve --stdio outlived its client; stderr:\n%s", s.stderr)
	}
	t.Logf("serve --stdio exited %s after its client went", time.Since(start).Round(time.Millisecond))
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, patience, 10*time.Millisecond, "the session's child outlived the server")
}
