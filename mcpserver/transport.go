package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one message IOTransport reads: a longer line is
// skipped (never held whole) and answered with an invalid-request error.
// It is the SDK's mcp.DefaultMaxLineLength, which ends the connection
// instead.
const MaxMessageBytes = 16 << 20

// IOTransport is the transport `ptywright mcp` serves on: newline-delimited
// JSON-RPC over Reader and Writer, as mcp.IOTransport, except that a line
// that is not a message does not end the connection (the SDK's transport
// ends it, and with it every session the client started). Each such line is
// answered, with id null as JSON-RPC prescribes, and skipped:
//
//   - a line that is not JSON (`hello`): -32700 parse error;
//   - JSON that is not a JSON-RPC 2.0 message (`null`, `[]`, `{}`, a
//     wrong "jsonrpc"): -32600 invalid request;
//   - a batch (a JSON array): -32600; MCP dropped batches in 2025-06-18;
//   - a line longer than MaxMessageBytes: -32600, read through without
//     being held.
//
// Blank lines are skipped and a trailing "\r" is dropped. Everything
// else reaches the SDK as it came.
type IOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// Logger receives a debug line for each line refused; nil discards.
	Logger *slog.Logger
}

// Connect implements mcp.Transport.
func (t *IOTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &lockedWriter{w: t.Writer}
	g := &lineGuard{in: bufio.NewReaderSize(t.Reader, 64<<10), src: t.Reader, out: w, max: MaxMessageBytes, log: log}
	// The guard bounds the lines; the SDK's own cap would count its
	// decoder's read-ahead against the next message.
	return (&mcp.IOTransport{Reader: g, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter serialises the SDK's writes (one per message) and the
// guard's error replies, so that lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// lineGuard is the reader the SDK decodes: it hands on only the lines that
// are JSON-RPC messages, one per line, and answers the others itself. Only
// the SDK's read goroutine calls Read.
type lineGuard struct {
	in      *bufio.Reader
	src     io.Closer
	out     io.Writer
	max     int
	log     *slog.Logger
	pending []byte // the rest of the message being handed on
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		msg, err := g.next()
		if err != nil {
			return 0, err
		}
		g.pending = msg
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

func (g *lineGuard) Close() error { return g.src.Close() }

// next returns the next line that is a message, with its newline,
// answering every other line on the way. An error is the stream's (io.EOF
// at its end) or a failed reply's.
func (g *lineGuard) next() ([]byte, error) {
	for {
		line, size, err := g.readLine()
		if err != nil {
			return nil, err
		}
		var code int64
		var reason string
		switch line = bytes.TrimSpace(line); {
		case size > int64(g.max):
			code, reason = jsonrpc.CodeInvalidRequest, fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", size, g.max)
		case len(line) == 0:
			continue
		case !json.Valid(line):
			code, reason = jsonrpc.CodeParseError, "not JSON"
		case line[0] == '[':
			code, reason = jsonrpc.CodeInvalidRequest, "batches are not supported (MCP 2025-06-18 removed them): send each message on a line of its own"
		default:
			if _, err := jsonrpc.DecodeMessage(line); err != nil {
				code, reason = jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+clip(err.Error())
			}
		}
		if code == 0 {
			return append(line, '\n'), nil
		}
		g.log.Debug("bad message", "code", code, "reason", reason)
		if err := g.reply(code, reason); err != nil {
			return nil, err
		}
	}
}

// reply answers a line that is no message.
func (g *lineGuard) reply(code int64, reason string) error {
	prefix := "Invalid request: "
	if code == jsonrpc.CodeParseError {
		prefix = "Parse error: "
	}
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": prefix + reason},
	})
	if err != nil {
		return err
	}
	_, err = g.out.Write(append(b, '\n'))
	return err
}

// readLine returns the next line without its newline (and a "\r" before
// it) and its length. A line longer than max is read through and dropped:
// its length is returned with no bytes. The last line may lack its
// newline; io.EOF says the stream ended before any byte of a line.
func (g *lineGuard) readLine() ([]byte, int64, error) {
	var line []byte
	var size int64
	for {
		chunk, err := g.in.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= int64(g.max)+1 { // +1: the newline
			line = append(line, chunk...)
		} else {
			line = nil
		}
		switch {
		case err == nil:
			size--
			line = bytes.TrimSuffix(line[:max(len(line)-1, 0)], []byte{'\r'})
			return line, size, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && size > 0:
			return bytes.TrimSuffix(line, []byte{'\r'}), size, nil
		default:
			return nil, 0, err
		}
	}
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
