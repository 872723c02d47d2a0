//go:build unix

package rpc

import (
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// orderingIterations is how many times each ordering case is repeated: the
// races they guard against are lost only some of the time.
const orderingIterations = 500

// orderedConn is a client that reads the stream itself, in order, so a
// test sees exactly what the server wrote before a response.
type orderedConn struct {
	t    testing.TB
	nc   net.Conn
	r    FrameReader
	w    FrameWriter
	next int
	// output is every session's session.output text so far, and exited
	// the sessions session.exited was received for.
	output map[string]*strings.Builder
	exited map[string]bool
	// told counts every notification received per session.
	told map[string]int
}

func dialOrdered(t testing.TB, path string) *orderedConn {
	t.Helper()
	nc, err := net.Dial("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &orderedConn{t: t, nc: nc, r: NDJSON.Reader(nc), w: NDJSON.Writer(nc), output: map[string]*strings.Builder{}, exited: map[string]bool{}, told: map[string]int{}}
}

// read returns the next frame, which must be a JSON object.
func (o *orderedConn) read() message {
	o.t.Helper()
	require.NoError(o.t, o.nc.SetReadDeadline(time.Now().Add(patience)))
	frame, err := o.r.ReadFrame()
	require.NoError(o.t, err)
	var m message
	require.NoError(o.t, json.Unmarshal(frame, &m), "%s", frame)
	if m.Method != "" {
		o.record(m)
	}
	return m
}

func (o *orderedConn) record(m message) {
	var p noteParams
	require.NoError(o.t, json.Unmarshal(m.Params, &p))
	o.told[p.Session]++
	switch m.Method {
	case notifyOutput:
		b := o.output[p.Session]
		if b == nil {
			b = &strings.Builder{}
			o.output[p.Session] = b
		}
		b.WriteString(p.Output)
	case notifyExited:
		o.exited[p.Session] = true
	}
}

// call sends a request and reads until its response, recording the
// notifications before it; check runs just before the response is
// returned, when everything written before it has been read.
func (o *orderedConn) call(method string, params any) message {
	o.t.Helper()
	o.next++
	id := strconv.Itoa(o.next)
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	require.NoError(o.t, err)
	require.NoError(o.t, o.w.WriteFrame(b))
	for {
		m := o.read()
		if m.Method != "" {
			continue
		}
		require.Equal(o.t, id, string(m.ID), "a response to another request")
		return m
	}
}

// do is call for a request that must succeed.
func (o *orderedConn) do(method string, params any, out any) {
	o.t.Helper()
	m := o.call(method, params)
	require.Nil(o.t, m.Error, "%s: %v", method, m.Error)
	if out != nil {
		require.NoError(o.t, json.Unmarshal(m.Result, out))
	}
}

// text is session's output so far.
func (o *orderedConn) text(session string) string {
	if b := o.output[session]; b != nil {
		return b.String()
	}
	return ""
}

// until reads notifications until cond holds.
func (o *orderedConn) until(cond func() bool) {
	o.t.Helper()
	for !cond() {
		m := o.read()
		require.NotEmpty(o.t, m.Method, "an unexpected response: %s", m.ID)
	}
}

// TestOrderingSessionInput: the output a session.input provokes (the
// terminal's echo and the child's answer) never comes before the input's
// response, over 500 eager iterations.
func TestOrderingSessionInput(t *testing.T) {
	srv := newServer(t, Options{})
	o := dialOrdered(t, serveUnix(t, srv))
	o.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	var created sessionResult
	o.do("session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", `echo ready; while read l; do echo "o:$l;"; done`}}, &created)
	id := created.Session
	o.until(func() bool { return strings.Contains(o.text(id), "ready") })

	violations := 0
	for i := range orderingIterations {
		mark := fmt.Sprintf("<%d>", i)
		m := o.call("session.input", input(id, mark+"\r"))
		require.Nil(t, m.Error)
		if strings.Contains(o.text(id), mark) {
			violations++
		}
	}
	last := fmt.Sprintf("o:<%d>;", orderingIterations-1)
	o.until(func() bool { return strings.Contains(o.text(id), last) })
	require.Zero(t, violations, "output came before the response of the input that caused it")
}

// TestOrderingSessionClose: session.exited never comes before the
// response of the session.close that ended the session, and no
// notification about a session comes before the session.create response
// that names it, over 500 sessions.
func TestOrderingSessionClose(t *testing.T) {
	srv := newServer(t, Options{})
	o := dialOrdered(t, serveUnix(t, srv))
	o.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	early, violations := 0, 0
	for range orderingIterations {
		var created sessionResult
		o.do("session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo up; exec cat"}}, &created)
		id := created.Session
		if o.told[id] > 0 {
			early++
		}
		o.do("session.close", map[string]any{"session": id}, nil)
		if o.exited[id] {
			violations++
		}
	}
	require.Zero(t, early, "notifications about a session came before the response that created it")
	require.Zero(t, violations, "session.exited came before the response of the session.close that caused it")
	// The exits were delivered after the responses, as they must be.
	o.until(func() bool { return len(o.exited) == orderingIterations })
}

// TestOrderingAdapterSend: the echo an adapter.send provokes never comes
// before its response, over 500 eager iterations.
func TestOrderingAdapterSend(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	o := dialOrdered(t, serveUnix(t, srv))
	o.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	// The program clears the screen and writes each line back twice at
	// the top, so the echo plugin's receipt (state echoed: the line on two
	// lines of the screen's body) confirms every send however many came
	// before.
	var a adapterStarted
	o.do("adapter.start", map[string]any{"plugin": "echo", "program": "/bin/sh", "args": []string{"-c", `while read l; do printf '\033[H\033[2J%s\n%s\n' "$l" "$l"; done`}}, &a)
	violations := 0
	for i := range orderingIterations {
		mark := fmt.Sprintf("<%d>", i)
		m := o.call("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": mark}})
		require.Nil(t, m.Error)
		require.Contains(t, string(m.Result), `"effect":"confirmed"`, "the receipt: %s", m.Result)
		if strings.Contains(o.text(a.Session), mark) {
			violations++
		}
	}
	last := fmt.Sprintf("<%d>", orderingIterations-1)
	o.until(func() bool { return strings.Count(o.text(a.Session), last) == 3 })
	require.Zero(t, violations, "output came before the response of the adapter.send that caused it")
}

// TestNotificationsNotHeldBehindWaits: a child printing on its own while a
// long session.wait and a long adapter.wait on it are pending on the same
// connection streams as it prints: waits hold nothing back.
func TestNotificationsNotHeldBehindWaits(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	path := serveUnix(t, srv)
	c := dialUnix(t, path, NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	ticker := `i=0; while :; do echo "tick-$i"; i=$((i+1)); sleep 0.05; done`
	id := c.sh(ticker)
	a := c.startAdapter(map[string]any{"plugin": "echo", "program": "/bin/sh", "args": []string{"-c", ticker}})

	sessWait := c.start("session.wait", map[string]any{"session": id, "matcher": containsText("never"), "timeout_ms": patience.Milliseconds()})
	adWait := c.start("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "never"}, "timeout_ms": patience.Milliseconds(), "wait_id": "long"})
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 2)

	// Ticks printed after both waits were blocked reach the client while
	// they are still pending.
	after := map[string]int{id: lastTick(t, c, id), a.Session: lastTick(t, c, a.Session)}
	for len(after) > 0 {
		m := c.note()
		if m.Method != notifyOutput {
			continue
		}
		p := decodeNote(t, m)
		if n, ok := after[p.Session]; ok && maxTick(p.Output) > n {
			delete(after, p.Session)
		}
	}
	for _, ch := range []<-chan message{sessWait, adWait} {
		select {
		case m := <-ch:
			t.Fatalf("a wait answered early: %+v", m)
		default:
		}
	}
	c.do("adapter.cancel_wait", map[string]any{"wait_id": "long"}, nil)
	requireError(t, c.await(adWait).Error, CodeCancelled, "cancelled")
	c.do("session.close", map[string]any{"session": id}, nil)
	requireError(t, c.await(sessWait).Error, CodeSessionClosed, "")
}

// lastTick is the highest tick-N in session's transcript.
func lastTick(t *testing.T, c *client, session string) int {
	t.Helper()
	var tr transcriptResult
	c.do("session.transcript", map[string]any{"session": session}, &tr)
	return maxTick(tr.Text)
}

func maxTick(text string) int {
	n := -1
	for _, m := range regexp.MustCompile(`tick-(\d+)`).FindAllStringSubmatch(text, -1) {
		v, _ := strconv.Atoi(m[1])
		n = max(n, v)
	}
	return n
}
