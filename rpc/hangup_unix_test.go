//go:build unix

package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// neverWait is a session.wait frame for session id that never matches.
func neverWait(reqID int, id string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + itoa(reqID) + `,"method":"session.wait","params":{"session":"` + id + `","matcher":{"type":"contains_text","value":"never"},"timeout_ms":30000}}` + "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// awaitGone polls until no session.wait is blocked and done (when not nil)
// is closed, reporting how long it took; it fails after a deadline of
// several seconds (the bound is "at once": a second).
func awaitGone(t *testing.T, start time.Time, done <-chan error) time.Duration {
	t.Helper()
	deadline := start.Add(5 * time.Second)
	for {
		ended := done == nil
		if !ended {
			select {
			case err := <-done:
				require.NoError(t, err)
				ended = true
				done = nil
			default:
			}
		}
		if ended && tuitest.InStacks("ptywright.(*Session).Wait") == 0 {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the wait is still running (connection ended: %v)", time.Since(start), ended)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestPeerGoneCancelsRequests: on every transport a peer that closes its
// end entirely (as a killed client does) has its pending wait cancelled at
// once, and the connection ends: a Unix socket (the peer's close is seen
// as a hangup), stdio (stdin ends and stdout's reader is gone) and a
// net.Pipe (it cannot be half-closed, so its EOF is the peer's close).
func TestPeerGoneCancelsRequests(t *testing.T) {
	type pair struct {
		client io.Closer
		w      io.Writer
		done   <-chan error // the server's end of the connection returned
	}
	transports := []struct {
		name string
		dial func(t *testing.T, srv *Server) pair
	}{
		{"unix", func(t *testing.T, srv *Server) pair {
			l, err := ListenUnix(socketDir(t) + "/s")
			require.NoError(t, err)
			accepted := make(chan net.Conn, 1)
			go func() {
				nc, err := l.Accept()
				if err == nil {
					accepted <- nc
				}
				close(accepted)
			}()
			nc, err := net.Dial("unix", l.Addr().String())
			require.NoError(t, err)
			sc := <-accepted
			require.NoError(t, l.Close())
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(context.Background(), sc, NDJSON) }()
			return pair{nc, nc, done}
		}},
		{"stdio", func(t *testing.T, srv *Server) pair {
			inR, inW, err := os.Pipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(context.Background(), Stdio(inR, outW), NDJSON) }()
			return pair{closers{inW, outR}, inW, done}
		}},
		{"net.Pipe", func(t *testing.T, srv *Server) pair {
			client, server := net.Pipe()
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(context.Background(), server, NDJSON) }()
			// net.Pipe is synchronous: someone must read what the server
			// writes until the client closes.
			go func() { _, _ = io.Copy(io.Discard, client) }()
			return pair{client, client, done}
		}},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := newServer(t, Options{})
			setup := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
			id := setup.sh("exec sleep 60")
			p := tr.dial(t, srv)
			_, err := p.w.Write(neverWait(1, id))
			require.NoError(t, err)
			tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
			start := time.Now()
			require.NoError(t, p.client.Close())
			took := awaitGone(t, start, p.done)
			t.Logf("%s: the wait of a peer that closed ended in %s", tr.name, took.Round(time.Millisecond))
		})
	}
}

// closers closes each in turn.
type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		if err := c.Close(); err != nil {
			return err
		}
	}
	return nil
}

// TestHalfClosedPeerGetsAnswers: a socket client that shuts down its
// writing side after its requests still reads their answers (the EOF does
// not cancel them); once it closes its end entirely, what is still pending
// is cancelled within a poll of hangupPoll.
func TestHalfClosedPeerGetsAnswers(t *testing.T) {
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	setup := dialUnix(t, path, NDJSON)
	never := setup.sh("exec sleep 60")
	late := setup.sh("sleep 0.3; echo late; exec sleep 60")

	nc, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write(neverWait(1, never))
	require.NoError(t, err)
	_, err = nc.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":"` + late + `","matcher":{"type":"contains_text","value":"late"},"timeout_ms":10000}}` + "\n"))
	require.NoError(t, err)
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 2)
	require.NoError(t, nc.(*net.UnixConn).CloseWrite())

	r := bufio.NewReader(nc)
	line, err := r.ReadBytes('\n')
	require.NoError(t, err)
	var m message
	require.NoError(t, json.Unmarshal(line, &m))
	require.Equal(t, "2", string(m.ID))
	require.Nil(t, m.Error)
	require.Contains(t, string(m.Result), `"matched":true`)
	// Still pending several polls later: a half-close is no hangup.
	time.Sleep(3 * hangupPoll)
	require.Equal(t, 1, tuitest.InStacks("ptywright.(*Session).Wait"))

	start := time.Now()
	require.NoError(t, nc.Close())
	took := awaitGone(t, start, nil)
	t.Logf("the wait of a half-closed peer that then closed ended in %s", took.Round(time.Millisecond))
}

// TestCloseAnswersPendingRequests is the server's end, repeated: Close (on
// a socket and on stdio) and the end of ServeConn's context (what SIGTERM
// does to `ptywright serve --stdio`) answer a pending wait with -32005 and
// its evidence before the stream closes, every time.
func TestCloseAnswersPendingRequests(t *testing.T) {
	const trials = 5
	requireCancelled := func(t *testing.T, m message) {
		t.Helper()
		require.NotNil(t, m.Error, "the wait was answered: %s", m.Result)
		require.Equal(t, int64(CodeCancelled), m.Error.Code, m.Error.Message)
		var data struct {
			Snapshot *json.RawMessage `json:"snapshot"`
		}
		require.NoError(t, json.Unmarshal(m.Error.Data, &data))
		require.NotNil(t, data.Snapshot, "the evidence: %s", m.Error.Data)
	}
	for i := range trials {
		t.Run("Close/"+itoa(i), func(t *testing.T) {
			srv := NewServer(Options{Logger: testLogger(t)})
			path := socketDir(t) + "/s"
			served := make(chan error, 1)
			go func() { served <- srv.ListenUnix(context.Background(), path) }()
			a := dialUnixRetry(t, path)
			inR, inW, err := os.Pipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			defer inW.Close()
			defer outR.Close()
			stdioDone := make(chan error, 1)
			go func() { stdioDone <- srv.ServeConn(context.Background(), Stdio(inR, outW), NDJSON) }()
			b := newClient(t, Stdio(outR, inW), NDJSON)
			id := a.sh("echo up; exec sleep 60")
			a.wait(id, containsText("up"))
			params := map[string]any{"session": id, "matcher": containsText("never"), "timeout_ms": patience.Milliseconds()}
			wa, wb := a.start("session.wait", params), b.start("session.wait", params)
			tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 2)
			require.NoError(t, srv.Close())
			require.ErrorIs(t, <-served, ErrServerClosed)
			require.ErrorIs(t, <-stdioDone, ErrServerClosed)
			requireCancelled(t, a.await(wa))
			requireCancelled(t, b.await(wb))
		})
	}
	for i := range trials {
		t.Run("ServeConnContext/"+itoa(i), func(t *testing.T) {
			srv := newServer(t, Options{})
			inR, inW, err := os.Pipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			defer inW.Close()
			defer outR.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(ctx, Stdio(inR, outW), NDJSON) }()
			c := newClient(t, Stdio(outR, inW), NDJSON)
			id := c.sh("exec sleep 60")
			w := c.start("session.wait", map[string]any{"session": id, "matcher": containsText("never"), "timeout_ms": patience.Milliseconds()})
			tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			requireCancelled(t, c.await(w))
		})
	}
}

// TestEndingConnectionCutsOffANonReader: when the server closes, a client
// that reads nothing while its answers and notifications fill the socket
// does not hold Close up beyond closeGrace.
func TestEndingConnectionCutsOffANonReader(t *testing.T) {
	srv := NewServer(Options{Logger: testLogger(t)})
	path := socketDir(t) + "/s"
	served := make(chan error, 1)
	go func() { served <- srv.ListenUnix(context.Background(), path) }()
	setup := dialUnixRetry(t, path)
	id := setup.create(map[string]any{"program": "yes"})
	nc, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer nc.Close()
	_, err = nc.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"server.set_notifications","params":{"enabled":true}}` + "\n"))
	require.NoError(t, err)
	_, err = nc.Write(neverWait(1, id))
	require.NoError(t, err)
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
	// The writer blocks once the socket's buffers are full.
	waitForStack(t, func(g string) bool {
		return regexpMatch(`rpc\.\(\*conn\)\.writeLoop`, g) && regexpMatch(`syscall\.write|internal/poll\.\(\*FD\)\.Write|waitWrite`, g)
	})
	start := time.Now()
	require.NoError(t, srv.Close())
	took := time.Since(start)
	require.ErrorIs(t, <-served, ErrServerClosed)
	require.Less(t, took, closeGrace+patience, "Close waited on a client that does not read")
	t.Logf("Close with a client that reads nothing took %s (closeGrace %s)", took.Round(time.Millisecond), closeGrace)
}

// TestPeerGoneCancelsAdapterCalls: a dead client's adapter.turn, which
// holds the adapter's lock in its wait, and its adapter.wait queued behind
// it (bound to a wait_id) end when it dies, as adapter.cancel_wait would
// end them: another client's call queued behind both gets the lock at once.
func TestPeerGoneCancelsAdapterCalls(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	path := serveUnix(t, srv)
	live := dialUnix(t, path, NDJSON)
	a := live.startAdapter(map[string]any{"plugin": "echo", "program": "/bin/sh", "args": []string{"-c", "echo ready; echo ready; exec cat"}})
	live.wait(a.Session, containsText("ready"))

	dead, err := net.Dial("unix", path)
	require.NoError(t, err)
	defer dead.Close()
	never := map[string]any{"intent": "wait_echo_matcher", "params": map[string]any{"text": "never"}, "timeout_ms": 30000}
	turn, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "adapter.turn", "params": map[string]any{
		"adapter": a.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "hello"}}, "wait": never}})
	require.NoError(t, err)
	params := map[string]any{"adapter": a.Adapter, "wait_id": "dead-queued"}
	for k, v := range never {
		params[k] = v
	}
	queued, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "adapter.wait", "params": params})
	require.NoError(t, err)
	// One after the other: requests on a connection run concurrently.
	_, err = dead.Write(append(turn, '\n'))
	require.NoError(t, err)
	live.wait(a.Session, containsText("hello"))          // the turn has sent
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1) // the turn's wait
	_, err = dead.Write(append(queued, '\n'))
	require.NoError(t, err)
	// The queued wait binds its id, then queues for the turn lock. (A
	// probe that asked for the id could claim it first, and then wait
	// behind the turn itself.)
	tuitest.BlockedIn(t, "ptywright.(*ExtensionHandle).lockForWait", 1)
	_, e := live.call("adapter.wait", map[string]any{"adapter": a.Adapter, "wait_id": "dead-queued", "intent": "wait_echo_matcher",
		"params": map[string]any{"text": "never"}, "timeout_ms": 1})
	require.NotNil(t, e)
	require.Regexp(t, `already in use`, e.Message)

	behind := live.start("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "ready"}, "timeout_ms": patience.Milliseconds()})
	time.Sleep(50 * time.Millisecond) // queued behind the dead client's calls
	start := time.Now()
	require.NoError(t, dead.Close())
	m := live.await(behind)
	took := time.Since(start)
	require.Nil(t, m.Error, "%v", m.Error)
	require.Contains(t, string(m.Result), `"predicate":"has_text"`)
	awaitGone(t, start, nil)
	t.Logf("the call queued behind a dead client's turn and wait answered %s after it died", took.Round(time.Millisecond))
	// The dead wait's id is free again.
	var res struct{ Cancelled bool }
	live.do("adapter.cancel_wait", map[string]any{"wait_id": "dead-queued"}, &res)
	require.False(t, res.Cancelled)
}
