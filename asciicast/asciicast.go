// Package asciicast reads and writes asciicast v2 recordings, the format
// of asciinema: a JSON header line, then one [time, code, data] line per
// event. It is what a ptywright Session records (Options.RecordPath) and
// what ptywright.Replay plays back; the standard asciinema player plays it
// too. The package imports nothing of ptywright's.
package asciicast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxSize bounds a recording's width and height, as ptywright.MaxSizeCells
// bounds a terminal's (a test holds them equal).
const MaxSize = 10000

// ErrInvalid is wrapped by every error Read returns for a file that is not
// a valid asciicast v2 recording.
var ErrInvalid = errors.New("ptywright: invalid asciicast recording")

// Error names the line (1-based; the header is line 1) and the part of it
// that makes a recording invalid. It wraps ErrInvalid.
type Error struct {
	Line   int
	Field  string // "version", "event[0]", ...
	Reason string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("recording line %d: %s: %s", e.Line, e.Field, e.Reason)
}

// Unwrap lets errors.Is match ErrInvalid.
func (e *Error) Unwrap() error { return ErrInvalid }

// EventType is the code of an asciicast v2 event.
type EventType string

// The asciicast v2 event codes.
const (
	// EventOutput is what the program wrote to the terminal.
	EventOutput EventType = "o"
	// EventInput is what was typed or sent to the program (not the
	// terminal's own replies to queries).
	EventInput EventType = "i"
	// EventResize is a terminal size change; its data is "COLSxROWS".
	EventResize EventType = "r"
	// EventMarker is a named point in the recording (a transcript marker).
	EventMarker EventType = "m"
)

// Recording is an asciicast v2 file: a header and timed events.
type Recording struct {
	Header Header
	Events []Event
}

// Header is the first line of an asciicast v2 file. Fields the
// format defines and ptywright does not use (theme) are ignored on reading.
type Header struct {
	// Version is always 2.
	Version int `json:"version"`
	// Width and Height are the initial terminal size in columns and rows.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Timestamp is when recording started, in Unix seconds (0: unknown).
	Timestamp int64 `json:"timestamp,omitempty"`
	// Duration and IdleTimeLimit are in seconds; 0 means absent.
	Duration      float64 `json:"duration,omitempty"`
	IdleTimeLimit float64 `json:"idle_time_limit,omitempty"`
	Command       string  `json:"command,omitempty"`
	Title         string  `json:"title,omitempty"`
	// Env holds the recorded session's TERM and SHELL.
	Env map[string]string `json:"env,omitempty"`
}

// Event is one timed event.
type Event struct {
	// Time is relative to the start of the recording.
	Time time.Duration
	Type EventType
	// Data is the output or input text, the "COLSxROWS" of a resize, or a
	// marker's label.
	Data string
}

// Size returns the terminal size the recording starts with.
func (r *Recording) Size() (rows, cols int) { return r.Header.Height, r.Header.Width }

// Duration returns the time of the last event.
func (r *Recording) Duration() time.Duration {
	if len(r.Events) == 0 {
		return 0
	}
	return r.Events[len(r.Events)-1].Time
}

// OutputBytes returns the total length of the output events' data, the
// amount of terminal output a replay parses.
func (r *Recording) OutputBytes() int64 {
	var n int64
	for _, ev := range r.Events {
		if ev.Type == EventOutput {
			n += int64(len(ev.Data))
		}
	}
	return n
}

// ParseResize reads a resize event's "COLSxROWS" data. Each side must be
// between 1 and MaxSize. The error names the field ("resize", "rows" or
// "cols") the way ptywright's size errors do.
func ParseResize(data string) (rows, cols int, err error) {
	c, r, ok := strings.Cut(data, "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("resize: %q is not COLSxROWS", data)
	case rows < 1 || rows > MaxSize:
		return 0, 0, fmt.Errorf("rows: must be between 1 and %d, got %d", MaxSize, rows)
	case cols < 1 || cols > MaxSize:
		return 0, 0, fmt.Errorf("cols: must be between 1 and %d, got %d", MaxSize, cols)
	}
	return rows, cols, nil
}

// ResizeData is a resize event's data for a terminal of rows x cols.
func ResizeData(rows, cols int) string { return strconv.Itoa(cols) + "x" + strconv.Itoa(rows) }

// WriteTo writes the recording in asciicast v2 form: the header line, then
// one line per event.
func (r *Recording) WriteTo(w io.Writer) (int64, error) {
	h := r.Header
	if h.Version == 0 {
		h.Version = 2
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return 0, err
	}
	buf := append(hb, '\n')
	for _, ev := range r.Events {
		buf = AppendEvent(buf, ev.Time, ev.Type, ev.Data)
	}
	n, err := w.Write(buf)
	return int64(n), err
}

// AppendEvent appends one event line, `[time, "code", "data"]\n`, time in
// seconds with microsecond precision, as asciinema writes it. A recorder
// that streams events to a file uses it rather than WriteTo.
func AppendEvent(dst []byte, t time.Duration, code EventType, data string) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendFloat(dst, float64(t.Microseconds())/1e6, 'f', 6, 64)
	dst = append(dst, ", "...)
	dst = appendJSONString(dst, string(code))
	dst = append(dst, ", "...)
	dst = appendJSONString(dst, data)
	return append(dst, "]\n"...)
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD; control characters are escaped; nothing else is (unlike
// encoding/json, which also escapes <, > and &, making terminal output
// larger and harder to read).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// maxEventSeconds keeps event times within what a time.Duration holds.
const maxEventSeconds = float64(math.MaxInt64/int64(time.Second)) - 1

// maxRecordingLine bounds one line of a recording, so a corrupt file cannot
// make Read allocate without limit.
const maxRecordingLine = 64 << 20

// Read reads and validates an asciicast v2 recording: a header
// object with version 2 and a valid size, then events [time, code, data]
// with times in seconds, never decreasing, codes o, i, r or m, and resize
// data "COLSxROWS". Blank lines are skipped. Errors are *Error naming the
// line.
func Read(r io.Reader) (*Recording, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	rec := &Recording{}
	line := 0
	header := false
	var prev float64
	for {
		b, err := readLine(br)
		if len(b) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("read recording: %w", err)
		}
		line++
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if !header {
			if err := decodeHeader(b, &rec.Header, line); err != nil {
				return nil, err
			}
			header = true
			continue
		}
		ev, t, err := decodeEvent(b, line, prev)
		if err != nil {
			return nil, err
		}
		prev = t
		rec.Events = append(rec.Events, ev)
	}
	if !header {
		return nil, &Error{Line: 1, Field: "header", Reason: "missing (empty input)"}
	}
	return rec, nil
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxRecordingLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxRecordingLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return out, err
		}
	}
}

func decodeHeader(b []byte, h *Header, line int) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return &Error{Line: line, Field: "header", Reason: "not a JSON object: " + err.Error()}
	}
	v, ok := raw["version"]
	if !ok {
		return &Error{Line: line, Field: "version", Reason: "missing"}
	}
	if string(bytes.TrimSpace(v)) != "2" {
		return &Error{Line: line, Field: "version", Reason: fmt.Sprintf("%s is not supported (want 2)", bytes.TrimSpace(v))}
	}
	if err := json.Unmarshal(b, h); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &Error{Line: line, Field: te.Field, Reason: "must be a JSON " + te.Type.Kind().String() + ", got " + te.Value}
		}
		return &Error{Line: line, Field: "header", Reason: err.Error()}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"width", h.Width}, {"height", h.Height}} {
		if _, ok := raw[f.name]; !ok {
			return &Error{Line: line, Field: f.name, Reason: "missing"}
		}
		if f.v < 1 || f.v > MaxSize {
			return &Error{Line: line, Field: f.name, Reason: fmt.Sprintf("must be between 1 and %d, got %d", MaxSize, f.v)}
		}
	}
	if h.Timestamp < 0 {
		return &Error{Line: line, Field: "timestamp", Reason: "must not be negative"}
	}
	return nil
}

func decodeEvent(b []byte, line int, prev float64) (Event, float64, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return Event{}, 0, &Error{Line: line, Field: "event", Reason: "not a JSON array: " + err.Error()}
	}
	if len(parts) != 3 {
		return Event{}, 0, &Error{Line: line, Field: "event", Reason: fmt.Sprintf("must have 3 elements [time, code, data], got %d", len(parts))}
	}
	var t float64
	if err := json.Unmarshal(parts[0], &t); err != nil {
		return Event{}, 0, &Error{Line: line, Field: "event[0]", Reason: "time must be a number of seconds, got " + string(parts[0])}
	}
	if math.IsInf(t, 0) || t < 0 || t > maxEventSeconds {
		return Event{}, 0, &Error{Line: line, Field: "event[0]", Reason: "time must be a finite number of seconds >= 0, got " + string(parts[0])}
	}
	if t < prev {
		return Event{}, 0, &Error{Line: line, Field: "event[0]", Reason: fmt.Sprintf("time %s is before the previous event's %g", parts[0], prev)}
	}
	var code, data string
	if err := json.Unmarshal(parts[1], &code); err != nil {
		return Event{}, 0, &Error{Line: line, Field: "event[1]", Reason: "code must be a string, got " + string(parts[1])}
	}
	switch EventType(code) {
	case EventOutput, EventInput, EventResize, EventMarker:
	default:
		return Event{}, 0, &Error{Line: line, Field: "event[1]", Reason: fmt.Sprintf("unknown event code %q (want o, i, r or m)", code)}
	}
	if err := json.Unmarshal(parts[2], &data); err != nil {
		return Event{}, 0, &Error{Line: line, Field: "event[2]", Reason: "data must be a string, got " + string(parts[2])}
	}
	if EventType(code) == EventResize {
		if _, _, err := ParseResize(data); err != nil {
			return Event{}, 0, &Error{Line: line, Field: "event[2]", Reason: err.Error()}
		}
	}
	d := time.Duration(math.Round(t * float64(time.Second)))
	return Event{Time: d, Type: EventType(code), Data: data}, t, nil
}
