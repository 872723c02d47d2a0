package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readAll reads frames until the end of the stream or a fatal error and
// records each frame or framing error, in order.
func readAll(t *testing.T, r FrameReader) []string {
	t.Helper()
	var got []string
	for range 100 {
		frame, err := r.ReadFrame()
		var fe *FrameError
		switch {
		case errors.As(err, &fe):
			code := "parse"
			if errors.Is(err, ErrInvalidRequest) {
				code = "invalid"
			}
			if fe.Fatal {
				return append(got, "FATAL "+code+": "+fe.Reason)
			}
			got = append(got, "ERR "+code+": "+fe.Reason)
		case errors.Is(err, io.EOF):
			return got
		case err != nil:
			t.Fatalf("unexpected error: %v", err)
		default:
			got = append(got, string(frame))
		}
	}
	t.Fatal("reader did not end")
	return nil
}

func TestNDJSONReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", 0, []string{`{"a":1}`, `{"b":2}`}},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", 0, []string{`{"a":1}`, `{"b":2}`}},
		{"blank lines skipped", "\n\r\n  \n{\"a\":1}\n\n", 0, []string{`{"a":1}`}},
		{"last line without newline", "{\"a\":1}\n{\"b\"", 0, []string{`{"a":1}`, `{"b"`}},
		{"empty stream", "", 0, nil},
		{"too large then next", strings.Repeat("x", 40) + "\n{\"ok\":1}\n", 16, []string{"ERR invalid: frame of 40 bytes exceeds the limit of 16 bytes", `{"ok":1}`}},
		{"exactly the limit", strings.Repeat("x", 16) + "\n", 16, []string{strings.Repeat("x", 16)}},
		{"too large at EOF", strings.Repeat("x", 40), 16, []string{"ERR invalid: frame of 40 bytes exceeds the limit of 16 bytes"}},
		{"invalid UTF-8 passes the framer", "\xff\xfe\n", 0, []string{"\xff\xfe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NDJSON.Reader(strings.NewReader(tt.in)).(*ndjsonReader)
			if tt.max > 0 {
				r.max = tt.max
				r.in = bufio.NewReaderSize(strings.NewReader(tt.in), 16) // exercise ErrBufferFull
			}
			require.Equal(t, tt.want, readAll(t, r))
		})
	}
}

func TestLSPReader(t *testing.T) {
	frame := func(body string) string { return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body }
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"two frames", frame(`{"a":1}`) + frame(`{"b":2}`), 0, []string{`{"a":1}`, `{"b":2}`}},
		{"case-insensitive name, other headers, LF only", "content-length: 7\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n{\"a\":1}", 0, []string{`{"a":1}`}},
		{"blank lines between frames", frame(`{"a":1}`) + "\r\n\r\n" + frame(`{"b":2}`), 0, []string{`{"a":1}`, `{"b":2}`}},
		{"empty body", frame(""), 0, []string{""}},
		{"missing length resyncs", "Content-Type: x\r\n\r\n{\"lost\":1}" + frame(`{"b":2}`), 0, []string{"ERR parse: missing Content-Length header", `{"b":2}`}},
		{"bad length resyncs", "Content-Length: abc\r\n\r\n{\"lost\":1}" + frame(`{"b":2}`), 0, []string{`ERR parse: invalid Content-Length "abc"`, `{"b":2}`}},
		{"negative length resyncs", "Content-Length: -5\r\n\r\n" + frame(`{"b":2}`), 0, []string{`ERR parse: invalid Content-Length "-5"`, `{"b":2}`}},
		{"malformed header resyncs", "garbage line\r\n" + frame(`{"b":2}`), 0, []string{`ERR parse: malformed header line "garbage line" (want Name: value)`, `{"b":2}`}},
		{"resync finds a glued header, any case", "nonsense\r\nxx{}CONTENT-LENGTH: 2\r\n\r\n{}", 0, []string{`ERR parse: malformed header line "nonsense" (want Name: value)`, `{}`}},
		{"garbage to the end after a bad header", "oops\r\nno header follows", 0, []string{`ERR parse: malformed header line "oops" (want Name: value)`}},
		{"too large is skipped", frame(strings.Repeat("x", 40)) + frame(`{"b":2}`), 16, []string{"ERR invalid: frame of 40 bytes exceeds the limit of 16 bytes", `{"b":2}`}},
		{"too large and truncated", "Content-Length: 100\r\n\r\nshort", 16, []string{"FATAL parse: truncated frame: the stream ended inside a 100-byte body"}},
		{"truncated body", "Content-Length: 10\r\n\r\n{\"a\"", 0, []string{"FATAL parse: truncated frame: got 4 of 10 body bytes"}},
		{"truncated header", "Content-Length: 10", 0, []string{"FATAL parse: truncated frame: the stream ended inside a header"}},
		{"header line too long", strings.Repeat("X", 5000) + "\r\n" + frame(`{}`), 0, []string{"ERR parse: header line longer than 4096 bytes", `{}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := LSP.Reader(strings.NewReader(tt.in)).(*lspReader)
			if tt.max > 0 {
				r.max = tt.max
			}
			require.Equal(t, tt.want, readAll(t, r))
		})
	}
}

func TestWritersRoundTrip(t *testing.T) {
	// Writers reuse one buffer between frames (up to maxKeptFrameBuf):
	// smaller after larger, and after one too large to keep.
	payloads := []string{`{"a":1}`, `[]`, `"ü✓"`, strings.Repeat(`{"x":"y"}`, 1000), `{"b":2}`,
		strings.Repeat(`[1]`, maxKeptFrameBuf/3+1), `{"c":3}`, `[]`}
	for _, f := range Framings() {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			w := f.Writer(&buf)
			for _, p := range payloads {
				require.NoError(t, w.WriteFrame([]byte(p)))
			}
			require.Equal(t, payloads, readAll(t, f.Reader(&buf)))
		})
	}
	t.Run("lsp wire form", func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, LSP.Writer(&buf).WriteFrame([]byte(`{}`)))
		require.Equal(t, "Content-Length: 2\r\n\r\n{}", buf.String())
	})
	t.Run("ndjson refuses a newline", func(t *testing.T) {
		require.Error(t, NDJSON.Writer(io.Discard).WriteFrame([]byte("{\n}")))
	})
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestWritersBatchFrames: the frames of a batch (one collect's
// notifications) go out in one write, as the same bytes the frames
// written one at a time make, and a batch with a frame ndjson refuses
// writes nothing.
func TestWritersBatchFrames(t *testing.T) {
	payloads := [][]byte{[]byte(`{"a":1}`), []byte(`"ü✓"`), bytes.Repeat([]byte(`[1]`), maxKeptFrameBuf/3+1), []byte(`{}`)}
	for _, f := range Framings() {
		t.Run(string(f), func(t *testing.T) {
			var batched countingWriter
			fb, ok := f.Writer(&batched).(frameBatcher)
			require.True(t, ok)
			require.NoError(t, fb.writeFrames(payloads))
			require.NoError(t, fb.writeFrames(payloads[:1]))
			require.Equal(t, 2, batched.writes)

			var single bytes.Buffer
			w := f.Writer(&single)
			for _, p := range append(payloads, payloads[0]) {
				require.NoError(t, w.WriteFrame(p))
			}
			require.Equal(t, single.String(), batched.String())
		})
	}
	var out countingWriter
	err := NDJSON.Writer(&out).(frameBatcher).writeFrames([][]byte{[]byte(`{}`), []byte("{\n}")})
	require.Error(t, err)
	require.Zero(t, out.writes)
}

func TestParseFraming(t *testing.T) {
	for name, want := range map[string]Framing{"": NDJSON, "ndjson": NDJSON, "lsp": LSP} {
		got, err := ParseFraming(name)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := ParseFraming("xml")
	require.ErrorIs(t, err, ErrUnknownFraming)
	_, err = Framing("xml").Reader(strings.NewReader("")).ReadFrame()
	require.ErrorIs(t, err, ErrUnknownFraming)
	require.ErrorIs(t, Framing("xml").Writer(io.Discard).WriteFrame(nil), ErrUnknownFraming)
}
