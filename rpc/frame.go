package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxFrameBytes bounds one frame's payload. A larger frame is skipped and
// answered with an invalid-request error, so one oversized message costs the
// server a bounded amount of memory and the connection survives it.
const MaxFrameBytes = 16 << 20

// maxHeaderLine bounds one LSP header line; real headers are a few dozen
// bytes.
const maxHeaderLine = 4096

// Framing names how messages are delimited on a byte stream. Its values are
// the CLI's --framing names.
type Framing string

// The framings.
const (
	// NDJSON is one compact JSON message per line (the default).
	NDJSON Framing = "ndjson"
	// LSP is "Content-Length: N\r\n\r\n" followed by N bytes of JSON, as the
	// Language Server Protocol frames messages.
	LSP Framing = "lsp"
)

// ErrUnknownFraming is returned for a framing name other than "ndjson" and
// "lsp".
var ErrUnknownFraming = errors.New("ptywright: unknown framing (valid: ndjson, lsp)")

// Framings lists the supported framings, the default first.
func Framings() []Framing { return []Framing{NDJSON, LSP} }

// ParseFraming accepts "ndjson", "lsp", and "" (the default, NDJSON).
func ParseFraming(name string) (Framing, error) {
	switch Framing(name) {
	case "", NDJSON:
		return NDJSON, nil
	case LSP:
		return LSP, nil
	}
	return "", fmt.Errorf("framing %q: %w", name, ErrUnknownFraming)
}

// Framer turns a byte stream into frames and frames back into bytes. Framing
// implements it; the server never looks inside a frame it did not decode.
type Framer interface {
	Reader(io.Reader) FrameReader
	Writer(io.Writer) FrameWriter
}

// FrameReader reads one frame at a time. It is used by one goroutine.
type FrameReader interface {
	// ReadFrame returns the next frame's payload, which the caller owns.
	// A *FrameError reports a frame that could not be delivered; reading
	// may go on unless it is Fatal. io.EOF is a clean end of the stream.
	// Any other error is the transport's, and ends it.
	ReadFrame() ([]byte, error)
}

// FrameWriter writes one frame at a time. It is used by one goroutine.
type FrameWriter interface {
	// WriteFrame writes payload, which must be one compact JSON value
	// without a newline, as one frame.
	WriteFrame(payload []byte) error
}

// FrameError reports a malformed frame: too large, truncated, or with a bad
// header. The server answers it with a JSON-RPC error whose id is null.
type FrameError struct {
	// Err is the JSON-RPC class: ErrParse or ErrInvalidRequest.
	Err error
	// Reason says what was wrong, for the error message.
	Reason string
	// Fatal means the stream cannot be resynchronised; nothing more will
	// be read.
	Fatal bool
}

// Error reads "cause: reason".
func (e *FrameError) Error() string { return e.Err.Error() + ": " + e.Reason }

// Unwrap exposes the JSON-RPC class to errors.Is.
func (e *FrameError) Unwrap() error { return e.Err }

func tooLarge(n int64, limit int) *FrameError {
	return &FrameError{Err: ErrInvalidRequest, Reason: fmt.Sprintf("frame of %d bytes exceeds the limit of %d bytes", n, limit)}
}

// Reader returns a frame reader for f. An unknown framing yields a reader
// that fails with ErrUnknownFraming.
func (f Framing) Reader(r io.Reader) FrameReader {
	in := bufio.NewReaderSize(r, 64<<10)
	switch f {
	case NDJSON, "":
		return &ndjsonReader{in: in, max: MaxFrameBytes}
	case LSP:
		return &lspReader{in: in, max: MaxFrameBytes}
	}
	return errFramer{fmt.Errorf("framing %q: %w", string(f), ErrUnknownFraming)}
}

// Writer returns a frame writer for f. An unknown framing yields a writer
// that fails with ErrUnknownFraming.
func (f Framing) Writer(w io.Writer) FrameWriter {
	switch f {
	case NDJSON, "":
		return &ndjsonWriter{out: w}
	case LSP:
		return &lspWriter{out: w}
	}
	return errFramer{fmt.Errorf("framing %q: %w", string(f), ErrUnknownFraming)}
}

var _ Framer = NDJSON

type errFramer struct{ err error }

func (e errFramer) ReadFrame() ([]byte, error) { return nil, e.err }
func (e errFramer) WriteFrame([]byte) error    { return e.err }

// ndjsonReader splits the stream at '\n'. A trailing '\r' is dropped, blank
// lines are skipped, and a last line without a newline is still a frame.
type ndjsonReader struct {
	in  *bufio.Reader
	max int
}

func (r *ndjsonReader) ReadFrame() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

func (r *ndjsonReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		switch {
		case err == nil:
			chunk = chunk[:len(chunk)-1]
			if len(line)+len(chunk) > r.max {
				return nil, tooLarge(int64(len(line)+len(chunk)), r.max)
			}
			return append(line, chunk...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(line)+len(chunk) > r.max {
				n, err := r.skipLine()
				if err != nil && !errors.Is(err, io.EOF) {
					return nil, err
				}
				return nil, tooLarge(int64(len(line)+len(chunk))+n, r.max)
			}
			line = append(line, chunk...)
		case errors.Is(err, io.EOF):
			if len(line)+len(chunk) == 0 {
				return nil, io.EOF
			}
			if len(line)+len(chunk) > r.max {
				return nil, tooLarge(int64(len(line)+len(chunk)), r.max)
			}
			return append(line, chunk...), nil
		default:
			return nil, err
		}
	}
}

// skipLine discards up to and including the next '\n' and says how many
// bytes before it were dropped.
func (r *ndjsonReader) skipLine() (int64, error) {
	var n int64
	for {
		chunk, err := r.in.ReadSlice('\n')
		if err == nil {
			return n + int64(len(chunk)) - 1, nil
		}
		n += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}

type ndjsonWriter struct {
	out io.Writer
	buf frameBuf
}

func (w *ndjsonWriter) WriteFrame(payload []byte) error {
	return w.writeFrames([][]byte{payload})
}

// writeFrames writes the frames in one write (frameBatcher).
func (w *ndjsonWriter) writeFrames(payloads [][]byte) error {
	n := 0
	for _, p := range payloads {
		if bytes.IndexByte(p, '\n') >= 0 {
			return errors.New("rpc: ndjson frame contains a newline")
		}
		n += len(p) + 1
	}
	b := w.buf.take(n)
	for _, p := range payloads {
		b = append(append(b, p...), '\n')
	}
	_, err := w.out.Write(b)
	w.buf.keep(b)
	return err
}

// frameBatcher is a FrameWriter that can write several frames in one
// write: the notifications one collect builds (a session.changed and its
// session.output, say) then cost the peer one read and one wake-up
// instead of one each.
type frameBatcher interface {
	writeFrames(payloads [][]byte) error
}

// frameBuf is a writer's one buffer for the frame it writes, reused from
// frame to frame (one write per frame, the framing bytes and the payload
// together), so that a stream of notifications does not allocate its size
// again in garbage. A buffer a large frame grew is not kept.
type frameBuf struct{ b []byte }

// maxKeptFrameBuf is the largest buffer kept between frames.
const maxKeptFrameBuf = 1 << 20

func (f *frameBuf) take(n int) []byte {
	if cap(f.b) < n {
		return make([]byte, 0, n)
	}
	return f.b[:0]
}

func (f *frameBuf) keep(b []byte) {
	if cap(b) <= maxKeptFrameBuf {
		f.b = b
	} else {
		f.b = nil
	}
}

// lspReader reads "Content-Length: N\r\n" headers up to a blank line, then N
// bytes. Header names are case-insensitive, other headers are ignored, and
// blank lines between messages are tolerated. After a bad header it skips to
// the next "Content-Length:" it finds, since the body that followed cannot
// be delimited.
type lspReader struct {
	in     *bufio.Reader
	max    int
	resync bool   // skip to the next Content-Length header before reading
	prefix string // header text consumed while resynchronising
}

const contentLength = "content-length"

func (r *lspReader) ReadFrame() ([]byte, error) {
	if r.resync {
		if err := r.seekHeader(); err != nil {
			return nil, err
		}
		r.resync = false
	}
	length := int64(-1)
	headers := 0
	for {
		line, err := r.headerLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if headers == 0 && line == "" {
					return nil, io.EOF
				}
				return nil, &FrameError{Err: ErrParse, Reason: "truncated frame: the stream ended inside a header", Fatal: true}
			}
			return nil, err
		}
		if line == "" {
			if headers == 0 {
				continue // a blank line between messages
			}
			break
		}
		headers++
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, r.badHeader(fmt.Sprintf("malformed header line %q (want Name: value)", clip(line)))
		}
		if !strings.EqualFold(strings.TrimSpace(name), contentLength) {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return nil, r.badHeader(fmt.Sprintf("invalid Content-Length %q", clip(strings.TrimSpace(value))))
		}
		length = n
	}
	if length < 0 {
		return nil, r.badHeader("missing Content-Length header")
	}
	if length > int64(r.max) {
		if _, err := io.CopyN(io.Discard, r.in, length); err != nil {
			return nil, &FrameError{Err: ErrParse, Reason: fmt.Sprintf("truncated frame: the stream ended inside a %d-byte body", length), Fatal: true}
		}
		return nil, tooLarge(length, r.max)
	}
	body := make([]byte, length)
	if n, err := io.ReadFull(r.in, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FrameError{Err: ErrParse, Reason: fmt.Sprintf("truncated frame: got %d of %d body bytes", n, length), Fatal: true}
		}
		return nil, err
	}
	return body, nil
}

func (r *lspReader) badHeader(reason string) *FrameError {
	r.resync = true
	return &FrameError{Err: ErrParse, Reason: reason}
}

// headerLine returns one header line without its line ending. An over-long
// line is an error after which the reader resynchronises.
func (r *lspReader) headerLine() (string, error) {
	var line []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxHeaderLine {
			if errors.Is(err, bufio.ErrBufferFull) || err == nil {
				return "", r.badHeader(fmt.Sprintf("header line longer than %d bytes", maxHeaderLine))
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := r.prefix + strings.TrimRight(string(line), "\r\n")
		r.prefix = ""
		if err != nil {
			return s, err
		}
		return s, nil
	}
}

// seekHeader discards bytes up to and including the next "Content-Length:"
// (any case) and leaves that header name as the prefix of the next line.
func (r *lspReader) seekHeader() error {
	const want = contentLength + ":"
	matched := 0
	for {
		b, err := r.in.ReadByte()
		if err != nil {
			return err // io.EOF: the error was already reported.
		}
		c := b
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == want[matched]:
			matched++
		case c == want[0]: // 'c' occurs once in want, so no other overlap
			matched = 1
		default:
			matched = 0
		}
		if matched == len(want) {
			r.prefix = "Content-Length:"
			return nil
		}
	}
}

type lspWriter struct {
	out io.Writer
	buf frameBuf
}

func (w *lspWriter) WriteFrame(payload []byte) error {
	return w.writeFrames([][]byte{payload})
}

// writeFrames writes the frames in one write (frameBatcher).
func (w *lspWriter) writeFrames(payloads [][]byte) error {
	n := 0
	for _, p := range payloads {
		n += len("Content-Length: \r\n\r\n") + 20 + len(p)
	}
	b := w.buf.take(n)
	for _, p := range payloads {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(p)), 10)
		b = append(append(b, "\r\n\r\n"...), p...)
	}
	_, err := w.out.Write(b)
	w.buf.keep(b)
	return err
}

// clip shortens text quoted in an error message.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
