//go:build unix

package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rawMCP is a client that speaks MCP line by line, so it can send what no
// SDK client would.
type rawMCP struct {
	t *testing.T
	w io.Writer
	r *bufio.Reader
}

// rawMessage is any message the server writes.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *rawMCP) send(line string) {
	c.t.Helper()
	_, err := io.WriteString(c.w, line+"\n")
	require.NoError(c.t, err)
}

// read returns the next message that is not a notification.
func (c *rawMCP) read() rawMessage {
	c.t.Helper()
	for {
		line, err := c.r.ReadBytes('\n')
		require.NoError(c.t, err)
		var m rawMessage
		require.NoError(c.t, json.Unmarshal(line, &m), "%s", line)
		if m.Method == "" {
			return m
		}
	}
}

// call sends a request and returns its response, which must come next.
func (c *rawMCP) call(id, method string, params any) rawMessage {
	c.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	require.NoError(c.t, err)
	c.send(string(b))
	m := c.read()
	require.Equal(c.t, id, string(m.ID))
	require.Nil(c.t, m.Error, "%s", method)
	return m
}

// tool calls a tool that must succeed and returns its structured content.
func (c *rawMCP) tool(id, name string, args any) map[string]any {
	c.t.Helper()
	m := c.call(id, "tools/call", map[string]any{"name": name, "arguments": args})
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	require.NoError(c.t, json.Unmarshal(m.Result, &res))
	require.False(c.t, res.IsError, "%s: %s", name, m.Result)
	return res.StructuredContent
}

// initialize opens the MCP session.
func (c *rawMCP) initialize() {
	c.t.Helper()
	c.call("1", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}})
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// badFrames are five kinds of line that are no message, each
// with the error code and a piece of the message it is answered with.
func badFrames() []struct {
	line, what string
	code       int64
} {
	return []struct {
		line, what string
		code       int64
	}{
		{"hello", "Parse error: not JSON", -32700},
		{"[]", "Invalid request: batches are not supported", -32600},
		{"null", "Invalid request: not a JSON-RPC 2.0 message", -32600},
		{`[{"jsonrpc":"2.0","id":90,"method":"tools/list"},{"jsonrpc":"2.0","id":91,"method":"ping"}]`, "Invalid request: batches are not supported", -32600},
		{`{"jsonrpc":"2.0","id":92,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", MaxMessageBytes) + `"}}`, "exceeds the limit of 16777216 bytes", -32600},
	}
}

// TestBadFramesAreAnsweredAndSkipped: over a pipe, as `ptywright mcp`
// serves stdio, each bad line is answered with its JSON-RPC error (id
// null) and the server reads on: tools/list answers after them, and the
// session started before them is alive and answers.
func TestBadFramesAreAnsweredAndSkipped(t *testing.T) {
	inR, inW, err := os.Pipe()
	require.NoError(t, err)
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	defer outR.Close()
	done := make(chan error, 1)
	go func() {
		srv := New(Options{Logger: slog.New(slog.DiscardHandler)})
		done <- srv.Serve(context.Background(), &IOTransport{Reader: inR, Writer: outW})
	}()
	c := &rawMCP{t: t, w: inW, r: bufio.NewReader(outR)}
	c.initialize()
	started := c.tool("2", "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo alive; exec cat"}})
	session, _ := started["session"].(string)
	require.NotEmpty(t, session)

	frames := badFrames()
	// Written from a goroutine: the oversized line is more than the pipe
	// holds, and the server answers the lines before it meanwhile.
	go func() {
		for _, f := range frames {
			if _, err := io.WriteString(inW, f.line+"\n"); err != nil {
				return
			}
		}
	}()
	for _, f := range frames {
		m := c.read()
		require.Equal(t, "null", string(m.ID), "%.40s", f.line)
		require.NotNil(t, m.Error, "%.40s", f.line)
		require.Equal(t, f.code, m.Error.Code, "%.40s: %s", f.line, m.Error.Message)
		require.Contains(t, m.Error.Message, f.what)
	}

	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(c.call("3", "tools/list", nil).Result, &list))
	require.NotEmpty(t, list.Tools)
	c.tool("4", "session_send", map[string]any{"session": session, "text": "still-here", "keys": []string{"enter"}})
	w := c.tool("5", "session_wait", map[string]any{"session": session, "text": "still-here"})
	require.Equal(t, true, w["matched"], "%v", w)
	require.Contains(t, w["screen"], "alive")

	require.NoError(t, inW.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(patience):
		t.Fatal("Serve did not return after stdin closed")
	}
}

// TestLineGuardBounds: the guard's line reader holds no more than the
// limit of an oversized line, and counts it whole.
func TestLineGuardBounds(t *testing.T) {
	var out strings.Builder
	in := strings.Repeat("y", 100) + "\n" + strings.Repeat("z", 16) + "\n" + strings.Repeat("v", 15) + "\r\n" +
		`{"jsonrpc":"2.0","method":"x"}` + "\n\n  \n" + strings.Repeat("w", 17)
	g := &lineGuard{in: bufio.NewReaderSize(strings.NewReader(in), 16), src: io.NopCloser(nil), out: &out, max: 16, log: slog.New(slog.DiscardHandler)}
	line, size, err := g.readLine()
	require.NoError(t, err)
	require.Nil(t, line, "an oversized line is not held")
	require.Equal(t, int64(100), size)
	line, size, err = g.readLine()
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("z", 16), string(line), "a line at the limit is a line")
	require.Equal(t, int64(16), size)
	line, size, err = g.readLine()
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("v", 15), string(line), "the \\r is dropped")
	require.Equal(t, int64(16), size, "the \\r counts")
	// At a budget of 16, the valid message (30 bytes) is too long as well;
	// the blank lines are skipped, and the last line, without a newline,
	// too long.
	_, err = g.next()
	require.ErrorIs(t, err, io.EOF)
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, got, 2)
	require.Contains(t, got[0], "message of 30 bytes exceeds the limit of 16 bytes")
	require.Contains(t, got[1], "message of 17 bytes exceeds the limit of 16 bytes")
}
