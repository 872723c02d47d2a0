//go:build unix

package rpc

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
)

// heldSessions counts the sessions the notifiers of srv's connections
// still follow.
func heldSessions(srv *Server) int {
	srv.reg.subsMu.RLock()
	defer srv.reg.subsMu.RUnlock()
	n := 0
	for no := range srv.reg.subs {
		no.mu.Lock()
		n += len(no.subs)
		no.mu.Unlock()
	}
	return n
}

// TestNotifierLetsRemovedSessionsGo: a connection's writer may take a
// removed session's last events (its exit) before the session's watcher
// has stopped, when the notifier cannot yet forget the session: the
// watcher may still post. The watcher's end must reach it then, or the
// notifier keeps the session (screen, transcript, process state) for as
// long as the connection lives, and with it every session closed so.
func TestNotifierLetsRemovedSessionsGo(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	r := newRegistry(log, events.New(log))
	n := newNotifier(log, r)
	r.subscribe(n)
	n.set(true, filter{}, nil)
	sess, err := ptywright.Start(ptywright.Options{Program: "true"})
	require.NoError(t, err)
	e := &entry{id: "s1", sess: sess, stop: make(chan struct{}), done: make(chan struct{})}

	// As the watcher does at the exit, and as shut does before Close.
	select {
	case <-sess.Exited():
	case <-time.After(patience):
		t.Fatal("true did not exit")
	}
	e.removed.Store(true)
	r.publish(e, evChanged|evExited)
	require.NotEmpty(t, n.collect(), "session.exited")
	require.Len(t, n.subs, 1, "the watcher has not stopped: the session stays followed")

	require.NoError(t, sess.Close())
	r.watched(e) // The watcher stops.
	for n.pending() {
		n.collect()
	}
	require.Empty(t, n.subs, "the notifier still holds the removed session")
	require.Empty(t, n.dirty)

	// Nothing posted after the end makes a delivery again.
	r.publishLifecycle(e, contract.LifecycleStatus{})
	require.Empty(t, n.subs)
}

// TestClosedSessionsLetGo: sessions created over JSON-RPC and closed with
// session.close, while two connections follow them (the closing one all
// of them, the other one session, subscribed while all of them run),
// leave nothing behind: the registry, the notifiers and the live heap come
// back to where they started. Killed sessions, which stay registered so
// their final screen and transcript can be read, hold their screen and
// transcript only (the reader's buffers are let go at the exit).
func TestClosedSessionsLetGo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a hundred sessions")
	}
	const sessions = 60
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	c := dialUnix(t, path, NDJSON)
	watcher := dialUnix(t, path, NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	// Both read every notification (the test client queues them).
	create := func() []string {
		ids := make([]string, sessions)
		for i := range ids {
			ids[i] = c.create(map[string]any{"program": "sleep", "args": []string{"60"}})
		}
		return ids
	}
	closeAll := func(ids []string) {
		for _, id := range ids {
			c.do("session.close", map[string]any{"session": id}, nil)
		}
	}
	// A first round, so that what a server keeps once (the connections'
	// buffers, the process table's listing, the runtime's goroutine
	// structures) is in the baseline.
	closeAll(create())
	base := liveHeap()

	ids := create()
	watcher.do("server.set_notifications", map[string]any{"enabled": true, "sessions": ids[:1]}, nil)
	idle := liveHeap()
	t.Logf("%d idle sessions: %d B live heap each", sessions, (int64(idle)-int64(base))/sessions)

	for _, id := range ids {
		c.do("session.kill", map[string]any{"session": id}, nil)
	}
	for _, id := range ids {
		c.do("session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "process_exited"}, "timeout_ms": patience.Milliseconds()}, nil)
	}
	killed := liveHeap()
	perKilled := (int64(killed) - int64(base)) / sessions
	t.Logf("%d killed sessions, still registered: %d B live heap each", sessions, perKilled)
	require.Less(t, perKilled, int64(64<<10), "a killed session holds more than its screen and transcript")

	closeAll(ids)
	require.Empty(t, srv.reg.list())
	deadline := time.Now().Add(patience)
	for heldSessions(srv) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // The writers forget them as they write.
	}
	require.Zero(t, heldSessions(srv), "notifiers follow closed sessions")
	after := liveHeap()
	t.Logf("after closing them: %+d B live heap in all", int64(after)-int64(base))
	require.Less(t, int64(after)-int64(base), int64(sessions*8<<10), "closed sessions are kept")
}

// TestNotifierFollowsOnlyItsFilter: a subscription follows the sessions
// in its filter and no other: nothing is posted for a session outside
// the filter, so a delivery seeded for one would never be let go, and the
// session, once closed, would stay in memory for the connection's life.
func TestNotifierFollowsOnlyItsFilter(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	r := newRegistry(log, events.New(log))
	n := newNotifier(log, r)
	sess, err := ptywright.Start(ptywright.Options{Program: "cat"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, sess.Close()) })
	entries := []*entry{{id: "s1", sess: sess}, {id: "s2", sess: sess}, {id: "s3", sess: sess}, {id: "s4", sess: sess}}

	n.set(true, newFilter([]string{"s1"}, nil), entries)
	require.Len(t, n.subs, 1)
	require.Contains(t, n.subs, entries[0])

	n.set(true, newFilter([]string{"s2", "s3"}, nil), entries)
	require.Len(t, n.subs, 2, "narrowed to s2 and s3")
	require.NotContains(t, n.subs, entries[0])

	entries[3].removed.Store(true)
	n.set(true, filter{}, entries)
	require.Len(t, n.subs, 3, "s1 seeded, s2 and s3 kept; s4, being removed, is not seeded")
	require.NotContains(t, n.subs, entries[3])
}
