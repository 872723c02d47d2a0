//go:build unix

package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

func input(session, text string) map[string]any {
	return map[string]any{"session": session, "action": map[string]any{"type": "text", "value": text}}
}

// decodeNote returns a notification's params.
func decodeNote(t *testing.T, m message) noteParams {
	t.Helper()
	var p noteParams
	require.NoError(t, json.Unmarshal(m.Params, &p))
	return p
}

// outputUntil collects session.output text of session until it contains
// want, failing on notifications of other sessions.
func outputUntil(t *testing.T, c *client, session, want string) (text string, seen []message) {
	t.Helper()
	for !strings.Contains(text, want) {
		m := c.note()
		seen = append(seen, m)
		p := decodeNote(t, m)
		require.Equal(t, session, p.Session, "notification %s for a session outside the filter", m.Method)
		if m.Method == notifyOutput {
			text += p.Output
		}
	}
	return text, seen
}

// TestClientsShareSessions: two clients on one socket drive the same
// session; one waits while the other types.
func TestClientsShareSessions(t *testing.T) {
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	a := dialUnix(t, path, NDJSON)
	b := dialUnix(t, path, NDJSON)

	id := a.sh(`stty -echo; echo ready; while read l; do echo "got:$l"; done`)
	a.wait(id, containsText("ready"))
	waiting := a.start("session.wait", map[string]any{"session": id, "matcher": containsText("got:hello"), "timeout_ms": patience.Milliseconds()})

	var list sessionListResult
	b.do("session.list", nil, &list)
	require.Equal(t, []string{id}, list.Sessions)
	b.do("session.input", input(id, "hello\r"), nil)

	m := a.await(waiting)
	require.Nil(t, m.Error)
	var res waitResult
	require.NoError(t, json.Unmarshal(m.Result, &res))
	require.Contains(t, res.Snapshot.PlainText, "got:hello")

	// A session closed by one client is gone for the other.
	b.do("session.close", map[string]any{"session": id}, nil)
	e := a.callErr("session.snapshot", map[string]any{"session": id})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
}

// TestNotificationsArePushedScopedAndSeeded: a subscriber filtered to one
// session is told of that session's output as it happens (without sending
// requests), never of other sessions, never of output from before it
// subscribed, and of the exit exactly once, last.
func TestNotificationsArePushedScopedAndSeeded(t *testing.T) {
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	driver := dialUnix(t, path, NDJSON)
	sub := dialUnix(t, path, NDJSON)

	script := `stty -echo; echo before-subscribe; while read l; do [ "$l" = quit ] && exit 3; echo "out:$l"; done`
	other := driver.sh(script)
	watched := driver.sh(script)
	driver.wait(watched, containsText("before-subscribe"))
	driver.wait(other, containsText("before-subscribe"))

	var echo notificationsResult
	sub.do("server.set_notifications", map[string]any{"enabled": true, "sessions": []string{watched}}, &echo)
	require.Equal(t, notificationsResult{Enabled: true, Adapters: []string{}, Sessions: []string{watched}}, echo)

	driver.do("session.input", input(other, "noise\r"), nil)
	driver.wait(other, containsText("out:noise"))
	driver.do("session.input", input(watched, "one\r"), nil)
	text, seen := outputUntil(t, sub, watched, "out:one")
	require.NotContains(t, text, "before-subscribe", "output retained before the subscription was replayed")
	require.Equal(t, notifyChanged, seen[0].Method, "session.changed comes before the output")

	driver.do("session.input", input(watched, "quit\r"), nil)
	var exited []message
	for len(exited) == 0 {
		m := sub.note()
		require.Equal(t, watched, decodeNote(t, m).Session)
		if m.Method == notifyExited {
			exited = append(exited, m)
		}
	}
	// Closing publishes once more; nothing may repeat the exit.
	driver.do("session.close", map[string]any{"session": watched}, nil)
	driver.do("session.input", input(other, "more\r"), nil)
	driver.wait(other, containsText("out:more"))
	sub.do("server.set_notifications", map[string]any{"enabled": false}, nil)
	for {
		select {
		case m := <-sub.notes:
			p := decodeNote(t, m)
			require.Equal(t, watched, p.Session)
			require.NotEqual(t, notifyExited, m.Method, "session.exited sent twice")
			continue
		default:
		}
		break
	}
}

// TestNotificationsForNewSessions: a subscriber without a filter hears of a
// session created after it subscribed from its first output on.
func TestNotificationsForNewSessions(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	id := c.sh("echo first-words; exit 0")
	var methods []string
	var text string
	for {
		m := c.note()
		p := decodeNote(t, m)
		require.Equal(t, id, p.Session)
		methods = append(methods, m.Method)
		text += p.Output
		if m.Method == notifyExited {
			break
		}
	}
	require.Contains(t, text, "first-words")
	require.Equal(t, notifyExited, methods[len(methods)-1])
	require.Equal(t, 1, countOf(methods, notifyExited))
}

func countOf(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// TestOutputNotificationsAreRedacted: output notifications go through the
// default redaction policy.
func TestOutputNotificationsAreRedacted(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	id := c.sh("read x; echo API_KEY=sk-abcdefghijklmnopqrstuvwxyz; echo done-printing")
	c.do("session.input", input(id, "go\r"), nil)
	text, _ := outputUntil(t, c, id, "done-printing")
	require.Contains(t, text, "API_KEY=[REDACTED]")
	require.NotContains(t, text, "sk-abcdefghijklmnopqrstuvwxyz")
}

// TestConcurrentRequestsOnOneConnection: a blocked session.wait does not
// hold up a snapshot sent after it on the same connection.
func TestConcurrentRequestsOnOneConnection(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh(`stty -echo; echo ready; read l; echo "released:$l"; sleep 30`)
	c.wait(id, containsText("ready"))

	waiting := c.start("session.wait", map[string]any{"session": id, "matcher": containsText("released:"), "timeout_ms": patience.Milliseconds()})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
	var snap struct {
		PlainText string `json:"plain_text"`
	}
	c.do("session.snapshot", map[string]any{"session": id}, &snap)
	require.Equal(t, "ready", snap.PlainText)
	select {
	case m := <-waiting:
		t.Fatalf("the wait answered before its condition held: %+v", m)
	default:
	}
	// The snapshot answered while the wait was blocked: now release it.
	c.do("session.input", input(id, "go\r"), nil)
	m := c.await(waiting)
	require.Nil(t, m.Error)
}

// TestCloseWakesWaitersWithSessionClosed: a wait on a session another client
// closes ends at once with -32002.
func TestCloseWakesWaitersWithSessionClosed(t *testing.T) {
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	a := dialUnix(t, path, NDJSON)
	b := dialUnix(t, path, NDJSON)
	id := a.sh("echo up; sleep 30")
	a.wait(id, containsText("up"))
	waiting := a.start("session.wait", map[string]any{"session": id, "matcher": containsText("never"), "timeout_ms": patience.Milliseconds()})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)
	b.do("session.close", map[string]any{"session": id}, nil)
	m := a.await(waiting)
	require.NotNil(t, m.Error)
	require.Equal(t, int64(CodeSessionClosed), m.Error.Code)
	require.Contains(t, string(m.Error.Data), "up", "the evidence is the last screen")
}
