//go:build unix

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// transport connects a client to a server, for tests that must hold on every
// transport.
type transport struct {
	name    string
	connect func(t *testing.T, srv *Server, f Framing) *client
}

var transports = []transport{
	{"unix", func(t *testing.T, srv *Server, f Framing) *client {
		srv.opts.Framing = f
		return dialUnix(t, serveUnix(t, srv), f)
	}},
	{"stdio", func(t *testing.T, srv *Server, f Framing) *client {
		return newClient(t, serveStdio(t, srv, f), f)
	}},
}

// serveStdio serves srv over a pair of OS pipes, as `ptywright serve --stdio`
// does, and returns the client's end. The test fails if ServeConn does not
// end cleanly once the client closes its end.
func serveStdio(t *testing.T, srv *Server, f Framing) io.ReadWriteCloser {
	t.Helper()
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), Stdio(inR, outW), f) }()
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(patience):
			t.Fatal("ServeConn did not return after stdin closed")
		}
		_ = outR.Close()
	})
	// Closing the client's end closes only stdin, as a client piping into
	// the server does; the client then reads until the server closes stdout.
	return halfCloser{Reader: outR, w: inW}
}

type halfCloser struct {
	io.Reader
	w *os.File
}

func (h halfCloser) Write(p []byte) (int, error) { return h.w.Write(p) }
func (h halfCloser) Close() error                { return h.w.Close() }

// sendRef sends a request as printed in the reference (pretty JSON): as is
// for LSP, compacted onto one line for NDJSON.
func (c *client) sendRef(f Framing, text string) {
	c.t.Helper()
	b := []byte(text)
	if f == NDJSON {
		var buf bytes.Buffer
		require.NoError(c.t, json.Compact(&buf, b))
		b = buf.Bytes()
	}
	c.send(b)
}

// expect registers interest in the response with the given raw id.
func (c *client) expect(id string) <-chan message {
	ch := make(chan message, 1)
	c.mu.Lock()
	c.calls[id] = ch
	c.mu.Unlock()
	return ch
}

// ref sends a reference request and returns its response.
func (c *client) ref(f Framing, id, text string) message {
	c.t.Helper()
	ch := c.expect(id)
	c.sendRef(f, text)
	m := c.await(ch)
	require.Equal(c.t, "2.0", m.JSONRPC)
	return m
}

func (c *client) rawFrame() []byte {
	c.t.Helper()
	select {
	case b := <-c.raw:
		return b
	case <-time.After(patience):
		c.t.Fatalf("no frame within %s", patience)
		return nil
	}
}

func keys(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m), "%s", raw)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var snapshotKeys = []string{"alternate_screen", "application_cursor", "application_keypad", "bracketed_paste", "cells", "cursor", "plain_text", "sequence", "size", "title"}

// TestConformance sends every request example of the JSON-RPC reference, in
// both framings over a Unix socket and over stdio pipes, and checks the
// documented result shapes and error codes.
func TestConformance(t *testing.T) {
	for _, tr := range transports {
		for _, f := range Framings() {
			t.Run(tr.name+"/"+string(f), func(t *testing.T) {
				srv := newServer(t, Options{Version: "1.2.3"})
				c := tr.connect(t, srv, f)
				conformance(t, c, f)
			})
		}
	}
}

func conformance(t *testing.T, c *client, f Framing) {
	m := c.ref(f, "1", `{ "jsonrpc": "2.0", "id": 1, "method": "server.capabilities" }`)
	require.Nil(t, m.Error)
	var caps Capabilities
	require.NoError(t, json.Unmarshal(m.Result, &caps))
	require.Equal(t, "ptywright", caps.Name)
	require.Equal(t, "1.2.3", caps.Version)
	require.Equal(t, "jsonrpc-2.0", caps.Protocol)
	require.Equal(t, []string{"rpc.discover", "server.capabilities", "server.set_notifications", "session.close", "session.control", "session.create", "session.input", "session.kill", "session.list", "session.mouse", "session.resize", "session.run", "session.snapshot", "session.transcript", "session.wait"}, caps.Methods)
	require.Equal(t, []string{"adapter.event", "session.changed", "session.exited", "session.output"}, caps.Notifications)
	require.Equal(t, []string{"ndjson", "lsp"}, caps.Framings)
	require.False(t, caps.EmbeddedLua)
	require.Equal(t, MaxFrameBytes, caps.MaxFrameBytes)

	m = c.ref(f, "2", `{
"jsonrpc": "2.0",
"id": 2,
"method": "session.create",
"params": {
"program": "/bin/sh",
"args": ["-lc", "printf ready"],
"rows": 24,
"cols": 80
}
}`)
	require.Nil(t, m.Error)
	require.JSONEq(t, `{"session":"s1"}`, string(m.Result))

	m = c.ref(f, "3", `{ "jsonrpc": "2.0", "id": 3, "method": "session.list" }`)
	require.JSONEq(t, `{"sessions":["s1"]}`, string(m.Result))

	m = c.ref(f, "4", `{
"jsonrpc": "2.0",
"id": 4,
"method": "session.input",
"params": { "session": "s1", "action": { "type": "text", "value": "help\n" } }
}`)
	// The reference's program (printf ready) may have exited by now: then
	// the truthful answer is -32002, not a "sent" for bytes nobody reads.
	if m.Error != nil {
		require.Equal(t, int64(CodeSessionClosed), m.Error.Code, m.Error.Message)
		require.Contains(t, m.Error.Message, "the program exited")
	} else {
		// The reference's sent, and the bytes and sequence (additive).
		var in struct {
			Sent     bool   `json:"sent"`
			Bytes    int    `json:"bytes"`
			Sequence uint64 `json:"sequence"`
		}
		require.NoError(t, json.Unmarshal(m.Result, &in))
		require.Equal(t, []string{"bytes", "sent", "sequence"}, keys(t, m.Result))
		require.True(t, in.Sent)
		require.Equal(t, len("help\n"), in.Bytes)
	}

	m = c.ref(f, "2", `{
"jsonrpc": "2.0",
"id": 2,
"method": "server.set_notifications",
"params": { "enabled": true }
}`)
	require.JSONEq(t, `{"enabled":true,"adapters":[],"sessions":[]}`, string(m.Result))

	// Scoped to s2 (not yet created) and adapter e1: s1's events stay away.
	m = c.ref(f, "2", `{
"jsonrpc": "2.0",
"id": 2,
"method": "server.set_notifications",
"params": { "enabled": true, "adapters": ["e1"], "sessions": ["s2"] }
}`)
	require.JSONEq(t, `{ "enabled": true, "adapters": ["e1"], "sessions": ["s2"] }`, string(m.Result))

	m = c.ref(f, "5", `{
"jsonrpc": "2.0",
"id": 5,
"method": "session.wait",
"params": {
"session": "s1",
"matcher": { "type": "contains_text", "value": "ready" },
"timeout_ms": 5000
}
}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"elapsed_ms", "matched", "outcome", "sequence", "snapshot", "stable_for_ms", "transcript_tail"}, keys(t, m.Result))
	var wr struct {
		Matched        bool            `json:"matched"`
		Sequence       uint64          `json:"sequence"`
		Snapshot       json.RawMessage `json:"snapshot"`
		TranscriptTail string          `json:"transcript_tail"`
		Outcome        struct {
			Kind string `json:"kind"`
			Text string `json:"text"`
		} `json:"outcome"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &wr))
	require.True(t, wr.Matched)
	require.GreaterOrEqual(t, wr.Sequence, uint64(1))
	require.Contains(t, wr.TranscriptTail, "ready")
	require.Equal(t, "contains_text", wr.Outcome.Kind)
	require.Equal(t, snapshotKeys, keys(t, wr.Snapshot))
	var snap struct {
		Size      map[string]int  `json:"size"`
		Cursor    map[string]any  `json:"cursor"`
		PlainText string          `json:"plain_text"`
		Cells     json.RawMessage `json:"cells"`
		Title     *string         `json:"title"`
	}
	require.NoError(t, json.Unmarshal(wr.Snapshot, &snap))
	require.Equal(t, map[string]int{"rows": 24, "cols": 80, "pixel_width": 0, "pixel_height": 0}, snap.Size)
	require.Contains(t, snap.Cursor, "visible")
	require.Contains(t, snap.PlainText, "ready")
	require.Equal(t, "[]", string(snap.Cells), "a wait's snapshot carries no cells")
	require.Nil(t, snap.Title)

	m = c.ref(f, "6", `{
"jsonrpc": "2.0",
"id": 6,
"method": "session.snapshot",
"params": { "session": "s1" }
}`)
	require.Nil(t, m.Error)
	require.Equal(t, snapshotKeys, keys(t, m.Result))
	var full struct {
		PlainText string            `json:"plain_text"`
		Cells     []json.RawMessage `json:"cells"`
	}
	require.NoError(t, json.Unmarshal(m.Result, &full))
	require.Contains(t, full.PlainText, "ready")
	require.Len(t, full.Cells, 24*80)
	require.Equal(t, []string{"col", "row", "style", "text", "wide", "wide_continuation"}, keys(t, full.Cells[0]))

	m = c.ref(f, "7", `{
"jsonrpc": "2.0",
"id": 7,
"method": "session.transcript",
"params": { "session": "s1" }
}`)
	require.Nil(t, m.Error)
	require.Equal(t, []string{"text"}, keys(t, m.Result))
	require.Contains(t, string(m.Result), "ready")

	m = c.ref(f, "8", `{
"jsonrpc": "2.0",
"id": 8,
"method": "session.resize",
"params": { "session": "s1", "rows": 40, "cols": 120 }
}`)
	require.JSONEq(t, `{"resized":true}`, string(m.Result))
	var resized struct{ Size map[string]int }
	c.do("session.snapshot", map[string]any{"session": "s1"}, &resized)
	require.Equal(t, 40, resized.Size["rows"])
	require.Equal(t, 120, resized.Size["cols"])

	// The reference's program (printf ready) exits at once; waited for,
	// so that the answer does not depend on timing. A kill then signals
	// nobody (its pid may be another process's) and says so: -32002, as
	// text input does. A live program's kill answers the reference's result.
	c.wait("s1", map[string]any{"type": "process_exited"})
	m = c.ref(f, "9", `{
"jsonrpc": "2.0",
"id": 9,
"method": "session.kill",
"params": { "session": "s1" }
}`)
	require.NotNil(t, m.Error, "kill after the exit: %s", m.Result)
	require.Equal(t, int64(CodeSessionClosed), m.Error.Code, m.Error.Message)
	require.Contains(t, m.Error.Message, "exited")
	live := c.sh("sleep 30")
	res, rpcErr := c.call("session.kill", map[string]any{"session": live})
	require.Nil(t, rpcErr)
	require.JSONEq(t, `{"killed":true}`, string(res))
	c.do("session.close", map[string]any{"session": live}, nil)
	// Exited, still registered and readable.
	m = c.ref(f, "3", `{ "jsonrpc": "2.0", "id": 3, "method": "session.list" }`)
	require.JSONEq(t, `{"sessions":["s1"]}`, string(m.Result))
	c.do("session.transcript", map[string]any{"session": "s1"}, nil)

	m = c.ref(f, "10", `{
"jsonrpc": "2.0",
"id": 10,
"method": "session.close",
"params": { "session": "s1" }
}`)
	// The exit code comes back (additive): s1 exited on its own, with 0.
	require.JSONEq(t, `{"closed":true,"exit":{"code":0}}`, string(m.Result))
	m = c.ref(f, "6", `{"jsonrpc":"2.0","id":6,"method":"session.snapshot","params":{"session":"s1"}}`)
	require.Equal(t, int64(CodeInvalidParams), m.Error.Code)
	require.Contains(t, m.Error.Message, `unknown session "s1"`)
	m = c.ref(f, "3", `{ "jsonrpc": "2.0", "id": 3, "method": "session.list" }`)
	require.JSONEq(t, `{"sessions":[]}`, string(m.Result))

	errorCases(t, c, f)
}

func errorCases(t *testing.T, c *client, f Framing) {
	for _, tt := range []struct {
		name, id, frame string
		code            int64
		msg             string
	}{
		{"unknown method", "11", `{"jsonrpc":"2.0","id":11,"method":"session.teleport"}`, CodeMethodNotFound, `method not found: "session.teleport" (rpc.discover lists the methods; see docs/protocol.md)`},
		{"reserved method", "12", `{"jsonrpc":"2.0","id":12,"method":"rpc.nope"}`, CodeMethodNotFound, "method not found"},
		{"wrong param type", "13", `{"jsonrpc":"2.0","id":13,"method":"session.create","params":{"program":"/bin/sh","rows":"24"}}`, CodeInvalidParams, "rows: must be an integer"},
		{"unknown param", "14", `{"jsonrpc":"2.0","id":14,"method":"session.snapshot","params":{"session":"s1","colours":false}}`, CodeInvalidParams, "colours: unknown field"},
		{"params not an object", "15", `{"jsonrpc":"2.0","id":15,"method":"session.list","params":[1]}`, CodeInvalidParams, "params: must be an object, got an array"},
		{"missing program", "16", `{"jsonrpc":"2.0","id":16,"method":"session.create","params":{"program":""}}`, CodeInvalidParams, "program: must not be empty"},
		{"program not found", "17", `{"jsonrpc":"2.0","id":17,"method":"session.create","params":{"program":"/nonexistent/prog"}}`, CodeInvalidParams, "/nonexistent/prog"},
		{"bad size", "18", `{"jsonrpc":"2.0","id":18,"method":"session.create","params":{"program":"/bin/sh","rows":-1}}`, CodeInvalidParams, "rows: must be between 1 and 10000"},
		{"invalid request", "20", `{"jsonrpc":"2.0","id":20}`, CodeInvalidRequest, "method: required"},
		{"parse error", "null", `{"jsonrpc":"2.0","id":21,"method":`, CodeParseError, "not valid JSON"},
		{"invalid UTF-8", "null", "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"session.list\",\"params\":{\"x\":\"\xff\"}}", CodeParseError, "not valid UTF-8"},
		{"not an object", "null", `"hello"`, CodeInvalidRequest, "must be a JSON object"},
		{"empty batch", "null", `[]`, CodeInvalidRequest, "empty batch"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := c.expect(tt.id)
			c.send([]byte(tt.frame))
			m := c.await(ch)
			require.NotNil(t, m.Error, "%s", m.Result)
			require.Equal(t, tt.code, m.Error.Code, m.Error.Message)
			require.Contains(t, m.Error.Message, tt.msg)
			require.Equal(t, tt.id, string(m.ID))
		})
	}

	t.Run("lua without registry names it", func(t *testing.T) {
		id := c.sh("sleep 30")
		e := c.callErr("session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "lua", "value": map[string]any{"plugin": "p", "predicate": "f"}}})
		require.Equal(t, int64(CodeInvalidParams), e.Code)
		require.Contains(t, e.Message, "no plugin registry")
	})

	t.Run("timeout carries evidence", func(t *testing.T) {
		id := c.sh("printf 'waiting'; sleep 30")
		c.wait(id, containsText("waiting"))
		e := c.callErr("session.wait", map[string]any{"session": id, "matcher": containsText("never"), "timeout_ms": 50})
		require.Equal(t, int64(CodeTimeout), e.Code)
		require.Equal(t, []string{"elapsed_ms", "sequence", "snapshot", "transcript_tail"}, keys(t, e.Data))
		require.Contains(t, string(e.Data), "waiting")
	})

	t.Run("batch", func(t *testing.T) {
		c.send([]byte(`[{"jsonrpc":"2.0","id":"b1","method":"session.list"},{"jsonrpc":"2.0","method":"session.list"},{"jsonrpc":"2.0","id":"b2","method":"nope"},{"foo":1}]`))
		var resps []message
		require.NoError(t, json.Unmarshal(c.rawFrame(), &resps))
		require.Len(t, resps, 3, "the notification gets no entry")
		require.Equal(t, `"b1"`, string(resps[0].ID))
		require.Nil(t, resps[0].Error)
		require.Equal(t, `"b2"`, string(resps[1].ID))
		require.Equal(t, int64(CodeMethodNotFound), resps[1].Error.Code)
		require.Equal(t, "null", string(resps[2].ID))
		require.Equal(t, int64(CodeInvalidRequest), resps[2].Error.Code)

		// Only notifications: nothing at all, then the next call answers.
		c.send([]byte(`[{"jsonrpc":"2.0","method":"session.list"},{"jsonrpc":"2.0","method":"server.capabilities"}]`))
		c.do("session.list", nil, nil)
		c.do("session.list", nil, nil)
		select {
		case b := <-c.raw:
			t.Fatalf("unexpected frame after a batch of notifications: %s", b)
		default:
		}
	})

	t.Run("oversized frame is refused and the connection survives", func(t *testing.T) {
		big := `{"jsonrpc":"2.0","id":"big","method":"session.list","params":{"pad":"` + strings.Repeat("x", MaxFrameBytes) + `"}}`
		ch := c.expect("null")
		c.send([]byte(big))
		m := c.await(ch)
		require.Equal(t, int64(CodeInvalidRequest), m.Error.Code)
		require.Contains(t, m.Error.Message, "exceeds the limit")
		c.do("session.list", nil, nil)
	})
}

// TestLSPBadHeaderResyncs sends a frame with a broken header on an LSP
// connection: the server answers with a parse error and reads the next frame.
func TestLSPBadHeaderResyncs(t *testing.T) {
	srv := newServer(t, Options{})
	c := newClient(t, serveStdio(t, srv, LSP), LSP)
	ch := c.expect("null")
	ch1 := c.expect("1")
	body := `{"jsonrpc":"2.0","id":1,"method":"session.list"}`
	_, err := io.WriteString(c.rwc, "Content-Length: x\r\n\r\n"+body+"Content-Length: 48\r\n\r\n"+body)
	require.NoError(t, err)
	m := c.await(ch)
	require.Equal(t, int64(CodeParseError), m.Error.Code)
	require.Contains(t, m.Error.Message, "invalid Content-Length")
	// The glued second frame is found and answered.
	require.JSONEq(t, `{"sessions":[]}`, string(c.await(ch1).Result))
}

// TestStdioAnswersAfterEOF is `printf '...' | ptywright serve --stdio`:
// the client closes its end right after its requests, and still gets every
// response, including one for a wait that was still running.
func TestStdioAnswersAfterEOF(t *testing.T) {
	for _, f := range Framings() {
		t.Run(string(f), func(t *testing.T) {
			srv := newServer(t, Options{})
			inR, inW, err := os.Pipe()
			require.NoError(t, err)
			outR, outW, err := os.Pipe()
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(context.Background(), Stdio(inR, outW), f) }()
			w := f.Writer(inW)
			r := f.Reader(outR)
			next := func() message {
				frame, err := r.ReadFrame()
				require.NoError(t, err)
				var m message
				require.NoError(t, json.Unmarshal(frame, &m))
				return m
			}
			// Requests run concurrently, so a client waits for create's
			// answer before it uses the session.
			require.NoError(t, w.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"program":"/bin/sh","args":["-c","sleep 0.2; echo late"]}}`)))
			got := map[string]message{"1": next()}
			require.NoError(t, w.WriteFrame([]byte(`{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"late"},"timeout_ms":10000}}`)))
			require.NoError(t, inW.Close())
			got["2"] = next()
			require.JSONEq(t, `{"session":"s1"}`, string(got["1"].Result))
			require.Nil(t, got["2"].Error)
			require.Contains(t, string(got["2"].Result), `"matched":true`)
			require.NoError(t, <-done)
			_, err = r.ReadFrame()
			require.ErrorIs(t, err, io.EOF, "ServeConn closes stdout when done")
		})
	}
}

// TestTruncatedFrameEndsTheConnection: a stream that ends inside an LSP body
// is answered with a parse error, and ServeConn returns cleanly.
func TestTruncatedFrameEndsTheConnection(t *testing.T) {
	srv := newServer(t, Options{})
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), Stdio(inR, outW), LSP) }()
	_, err = io.WriteString(inW, "Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"")
	require.NoError(t, err)
	require.NoError(t, inW.Close())
	r := LSP.Reader(outR)
	frame, err := r.ReadFrame()
	require.NoError(t, err)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: truncated frame: got 16 of 100 body bytes"}}`, string(frame))
	require.NoError(t, <-done)
	_, err = r.ReadFrame()
	require.ErrorIs(t, err, io.EOF)
}
