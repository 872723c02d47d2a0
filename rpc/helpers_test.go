//go:build unix

package rpc

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// patience bounds how long a test waits for something that should happen
// at once; it only turns a hang into a failure.
const patience = 10 * time.Second

// newServer returns a server closed at the end of the test. Cleanup checks
// that every child it started was reaped and that no goroutine of ours is
// left running.
func newServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	srv := NewServer(opts)
	var pids []int
	var mu sync.Mutex
	t.Cleanup(func() {
		for _, e := range srv.reg.list() {
			mu.Lock()
			pids = append(pids, e.sess.Pid())
			mu.Unlock()
		}
		require.NoError(t, srv.Close())
		for _, pid := range pids {
			requireReaped(t, pid)
		}
		if leaked := ourGoroutines(2 * time.Second); leaked != "" {
			t.Errorf("goroutines leaked after Server.Close:\n%s", leaked)
		}
	})
	return srv
}

// requireReaped fails unless pid is no child of ours any more (wait4 says
// ECHILD): Close reaped it rather than leaving a zombie.
func requireReaped(t testing.TB, pid int) {
	t.Helper()
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	require.ErrorIs(t, err, syscall.ECHILD, "child %d was not reaped", pid)
}

// socketDir returns a fresh, short directory (sun_path is ~108 bytes).
func socketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ptw")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// serveUnix serves srv on a new socket for the length of the test.
func serveUnix(t testing.TB, srv *Server) string {
	t.Helper()
	path := socketDir(t) + "/sock/ptywright.sock"
	l, err := ListenUnix(path)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), l) }()
	t.Cleanup(func() {
		require.NoError(t, srv.Close())
		require.ErrorIs(t, <-done, ErrServerClosed)
	})
	return path
}

// client is a JSON-RPC client for tests: calls are matched to responses by
// id, notifications are queued in arrival order.
type client struct {
	t     testing.TB
	rwc   io.ReadWriteCloser
	r     FrameReader
	w     FrameWriter
	wmu   sync.Mutex
	next  atomic.Int64
	mu    sync.Mutex
	calls map[string]chan message
	notes chan message
	raw   chan []byte // frames that are not JSON objects (batch responses)
	done  chan struct{}
}

func dialUnix(t testing.TB, path string, framing Framing) *client {
	t.Helper()
	nc, err := net.Dial("unix", path)
	require.NoError(t, err)
	return newClient(t, nc, framing)
}

func newClient(t testing.TB, rwc io.ReadWriteCloser, framing Framing) *client {
	c := &client{
		t:     t,
		rwc:   rwc,
		r:     framing.Reader(rwc),
		w:     framing.Writer(rwc),
		calls: make(map[string]chan message),
		notes: make(chan message, 1<<16),
		raw:   make(chan []byte, 16),
		done:  make(chan struct{}),
	}
	go c.readLoop()
	t.Cleanup(func() {
		_ = c.rwc.Close()
		<-c.done
	})
	return c
}

func (c *client) readLoop() {
	defer close(c.done)
	for {
		frame, err := c.r.ReadFrame()
		if err != nil {
			return
		}
		var m message
		if len(frame) == 0 || frame[0] != '{' || json.Unmarshal(frame, &m) != nil {
			c.raw <- frame
			continue
		}
		if m.Method != "" {
			c.notes <- m
			continue
		}
		c.mu.Lock()
		ch := c.calls[string(m.ID)]
		delete(c.calls, string(m.ID))
		c.mu.Unlock()
		if ch == nil {
			c.raw <- frame
			continue
		}
		ch <- m
	}
}

func (c *client) send(frame []byte) {
	c.t.Helper()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	require.NoError(c.t, c.w.WriteFrame(frame))
}

// start sends a call and returns the channel its response arrives on.
func (c *client) start(method string, params any) <-chan message {
	c.t.Helper()
	id := strconv.FormatInt(c.next.Add(1), 10)
	ch := make(chan message, 1)
	c.mu.Lock()
	c.calls[id] = ch
	c.mu.Unlock()
	req := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	require.NoError(c.t, err)
	c.send(b)
	return ch
}

func (c *client) await(ch <-chan message) message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(patience):
		c.t.Fatalf("no response within %s", patience)
		return message{}
	}
}

// call returns the result or the error of one call.
func (c *client) call(method string, params any) (json.RawMessage, *Error) {
	c.t.Helper()
	m := c.await(c.start(method, params))
	return m.Result, m.Error
}

// do calls and decodes the result into out (if not nil), failing the test
// on an error response.
func (c *client) do(method string, params, out any) {
	c.t.Helper()
	res, rpcErr := c.call(method, params)
	require.Nil(c.t, rpcErr, "%s: %v", method, rpcErr)
	if out != nil {
		require.NoError(c.t, json.Unmarshal(res, out))
	}
}

// callErr calls and returns the error response, failing if it succeeded.
func (c *client) callErr(method string, params any) *Error {
	c.t.Helper()
	res, rpcErr := c.call(method, params)
	require.NotNil(c.t, rpcErr, "%s succeeded: %s", method, res)
	return rpcErr
}

// note returns the next notification.
func (c *client) note() message {
	c.t.Helper()
	select {
	case m := <-c.notes:
		return m
	case <-time.After(patience):
		c.t.Fatalf("no notification within %s", patience)
		return message{}
	}
}

// noteParams is the union of the notifications' params.
type noteParams struct {
	Session  string `json:"session"`
	Sequence uint64 `json:"sequence"`
	Output   string `json:"output"`
	Dropped  bool   `json:"dropped"`
}

func (c *client) create(params map[string]any) string {
	c.t.Helper()
	var res struct{ Session string }
	c.do("session.create", params, &res)
	require.NotEmpty(c.t, res.Session)
	return res.Session
}

func (c *client) sh(script string) string {
	c.t.Helper()
	return c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", script}})
}

func (c *client) wait(session string, matcher any) waitResult {
	c.t.Helper()
	var res waitResult
	c.do("session.wait", map[string]any{"session": session, "matcher": matcher, "timeout_ms": patience.Milliseconds()}, &res)
	require.True(c.t, res.Matched)
	return res
}

func containsText(s string) map[string]any {
	return map[string]any{"type": "contains_text", "value": s}
}
