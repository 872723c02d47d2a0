//go:build unix

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestCloseEndsEverything: Server.Close with connections on a socket and on
// stdio, a wait in progress, notifications flowing and children of every
// kind (one ignoring SIGTERM, one with a grandchild on the tty) returns,
// reaps every child, and leaves no goroutine of ours.
func TestCloseEndsEverything(t *testing.T) {
	srv := NewServer(Options{Logger: testLogger(t)})
	path := socketDir(t) + "/ptywright.sock"
	served := make(chan error, 1)
	go func() { served <- srv.ListenUnix(context.Background(), path) }()
	a := dialUnixRetry(t, path)
	stdioDone := make(chan error, 1)
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer inW.Close()
	defer outR.Close()
	go func() { stdioDone <- srv.ServeConn(context.Background(), Stdio(inR, outW), NDJSON) }()
	b := newClient(t, Stdio(outR, inW), NDJSON)

	a.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	plain := a.sh("echo plain; sleep 60")
	stubborn := a.sh("trap '' TERM HUP; echo stubborn; while :; do sleep 1; done")
	parent := a.sh(`sleep 60 & echo "grandchild:$!"; wait`)
	b.create(map[string]any{"program": "yes"}) // busy, with notifications on
	a.wait(plain, containsText("plain"))
	a.wait(stubborn, containsText("stubborn"))
	res := a.wait(parent, map[string]any{"type": "screen_regex", "value": `grandchild:(\d+)`})
	grandchild, err := strconv.Atoi(*res.Outcome.Capture)
	require.NoError(t, err)
	waiting := b.start("session.wait", map[string]any{"session": plain, "matcher": containsText("never"), "timeout_ms": patience.Milliseconds()})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)

	var pids []int
	for _, e := range srv.reg.list() {
		pids = append(pids, e.sess.Pid())
	}
	require.Len(t, pids, 4)

	require.NoError(t, srv.Close())
	require.ErrorIs(t, <-served, ErrServerClosed)
	require.ErrorIs(t, <-stdioDone, ErrServerClosed)
	for _, pid := range pids {
		requireReaped(t, pid)
	}
	requireGone(t, grandchild)
	if leaked := ourGoroutines(2 * time.Second); leaked != "" {
		t.Fatalf("goroutines leaked after Server.Close:\n%s", leaked)
	}
	// The wait was answered (cancelled) before the stream closed.
	m := b.await(waiting)
	require.NotNil(t, m.Error)
	require.Equal(t, int64(CodeCancelled), m.Error.Code, m.Error.Message)

	// A closed server refuses new work.
	require.ErrorIs(t, srv.ServeConn(context.Background(), Stdio(strings.NewReader(""), &strings.Builder{}), NDJSON), ErrServerClosed)
	l := newPipeListener()
	require.ErrorIs(t, srv.Serve(context.Background(), l), ErrServerClosed)
	require.NoError(t, srv.Close(), "Close is idempotent")
}

// requireGone waits for a process that is not our child to disappear.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for syscall.Kill(pid, 0) == nil && !isZombieGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d survived Close", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// isZombieGone reports whether /proc no longer lists pid as a live process.
func isZombieGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	return regexp.MustCompile(`\) [ZX] `).Match(b)
}

// TestHandlerPanicBecomesInternalError: a panicking handler answers -32603
// and the server goes on.
func TestHandlerPanicBecomesInternalError(t *testing.T) {
	var logs syncBuffer
	srv := newServer(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	srv.methods["test.panic"] = method{handler: func(context.Context, *conn, []byte) (any, error) {
		panic("boom with API_KEY=sk-abcdefghijklmnopqrstuvwxyz")
	}}
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	e := c.callErr("test.panic", nil)
	require.Equal(t, int64(CodeInternalError), e.Code)
	require.Contains(t, e.Message, "test.panic panicked: boom")
	require.NotContains(t, e.Message, "sk-abc", "error messages are redacted")
	// As a notification: no response, and the connection lives on.
	c.send([]byte(`{"jsonrpc":"2.0","method":"test.panic"}`))
	c.do("session.list", nil, nil)
	require.Eventually(t, func() bool { return strings.Count(logs.String(), "handler panicked") == 2 }, patience, time.Millisecond)
	require.NotContains(t, logs.String(), "sk-abc", "logs are redacted")
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInFlightIsBounded: with MaxInFlight requests blocked on one
// connection, the server stops reading it until one finishes.
func TestInFlightIsBounded(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh(`stty -echo; echo ready; read l; echo "released"; sleep 30`)
	c.wait(id, containsText("ready"))
	var waits []<-chan message
	for range MaxInFlight {
		waits = append(waits, c.start("session.wait", map[string]any{"session": id, "matcher": containsText("released"), "timeout_ms": patience.Milliseconds()}))
	}
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", MaxInFlight)
	list := c.start("session.list", nil)
	// The reader took the frame and now waits for a free slot.
	waitForStack(t, func(g string) bool {
		return strings.Contains(g, "rpc.(*conn).readLoop(") && !strings.Contains(g, "ReadFrame")
	})
	select {
	case m := <-list:
		t.Fatalf("answered beyond the in-flight bound: %s", m.Result)
	default:
	}
	// Release the waits through a second connection: this one is full.
	other := dialUnix(t, serveUnixPath(t, srv), NDJSON)
	other.do("session.input", input(id, "go\r"), nil)
	for _, w := range waits {
		require.Nil(t, c.await(w).Error)
	}
	var res sessionListResult
	require.NoError(t, json.Unmarshal(c.await(list).Result, &res))
	require.Equal(t, []string{id}, res.Sessions)
}

// serveUnixPath returns the socket path srv is already serving (from
// serveUnix).
func serveUnixPath(t *testing.T, srv *Server) string {
	t.Helper()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for l := range srv.listeners {
		return l.Addr().String()
	}
	t.Fatal("not serving a socket")
	return ""
}

// waitForStack waits until some goroutine's stack satisfies match.
func waitForStack(t *testing.T, match func(stack string) bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if match(g) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal(errors.New("no goroutine reached the expected state"))
		}
		time.Sleep(time.Millisecond)
	}
}
