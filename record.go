package ptywright

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"ptywright/asciicast"
)

// Limits of the redacting recorder beyond the shared hold-back ones
// (redact_stream.go).
const (
	// recordLookbehind is how much already-written output the redactor sees
	// again before the held text, so patterns that look back (the start of
	// an identifier, an escape sequence before a word) behave as on the
	// whole stream.
	recordLookbehind = 1024
	// recordMaxPending bounds the events held behind unsettled output.
	recordMaxPending = 4096
)

// recorder writes a Session as an asciicast v2 file: output events from the
// goroutine that parses the output, in the order the bytes were read, input events for what
// the Session sent (never the terminal's replies), resize and marker events.
//
// Redaction has to work on a stream cut into arbitrary chunks, where a
// secret can be split across two reads: the recorder holds back output with
// the stream machinery it shares with Session.OutputSince (redact_stream.go),
// seeing the last recordLookbehind bytes again before the held text, so
// everything redacts exactly as the whole stream would. The held bytes keep the time they
// arrived at and are written as their own event, before anything that came
// later, once more output settles them or the session closes: times in the
// file are those of the live session, only the write to disk is deferred.
// Input, resize and marker events queue behind held output, so the file
// stays in time order. Extra literals hold back their length minus one;
// extra regexes are guaranteed across chunks when their matches contain no
// control character. A control-free run longer than streamHoldMax is cut
// anyway, with recordLookbehind bytes of context kept for the redactor.
//
// Output is also held back at an incomplete UTF-8 sequence, so every event
// is valid JSON text; bytes that are not UTF-8 become U+FFFD, as asciinema
// does.
type recorder struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	start  time.Time
	red    *Redactor // nil records raw
	maxLit int

	pending    []pendingEvent
	stream     []byte // the pending output events' bytes, in order
	lookbehind []byte // the last raw bytes already written
	out        []byte // encoded lines not yet written
	err        error  // first write error; the recording stops there
	closed     bool
	queued     bool // events added since the last settle (flush)
}

type pendingEvent struct {
	t    time.Duration
	code asciicast.EventType
	off  int    // output: the event's bytes are stream[off:off+n]
	n    int    // output: how many bytes
	data string // input, resize, marker
}

// openRecording starts the recording Options ask for; nil when they ask for
// none.
func openRecording(opts Options, size Size, env []string) (*recorder, error) {
	if opts.RecordPath == "" {
		return nil, nil
	}
	var red *Redactor
	if !opts.RecordRaw {
		red = opts.RecordRedactor
		if red == nil {
			red = opts.Redactor.orDefault()
		}
	}
	return newRecorder(opts.RecordPath, size, env, red)
}

// newRecorder creates path (0600, never overwriting) and writes the header.
// red nil records raw.
func newRecorder(path string, size Size, env []string, red *Redactor) (*recorder, error) {
	if path == "" {
		return nil, &FieldError{Field: "record_path", Reason: "must not be empty", Err: fs.ErrInvalid}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, &FieldError{Field: "record_path", Reason: fmt.Sprintf("%q exists; ptywright never overwrites a recording", path), Err: ErrFileExists}
		}
		return nil, fmt.Errorf("record_path: %w", err)
	}
	r := &recorder{f: f, path: path, start: time.Now(), red: red}
	if red != nil {
		if !red.enabled {
			r.red = nil
		}
		r.maxLit = red.maxLiteral()
	}
	h := asciicast.Header{Version: 2, Width: size.Cols, Height: size.Rows, Timestamp: r.start.Unix(), Env: headerEnv(env)}
	b, err := json.Marshal(h)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if err != nil {
		r.abort()
		return nil, fmt.Errorf("record_path: write header: %w", err)
	}
	return r, nil
}

// headerEnv picks TERM and SHELL, the variables asciinema records.
func headerEnv(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		name, value, _ := cutEnv(kv)
		if name == "TERM" || name == "SHELL" {
			m[name] = value
		}
	}
	return m
}

// The Session queues events under its own lock, so that the file has them
// in the order the screen saw them (output, resizes, markers), and calls
// flush after unlocking it: the redaction and the file write, the costly
// part, never hold up a wait, a snapshot or a read of the transcript.

// output queues bytes the program wrote. Called from the goroutine that
// parses the output; flush writes them.
func (r *recorder) output(p []byte) {
	if r == nil || len(p) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.pending = append(r.pending, pendingEvent{t: time.Since(r.start), code: asciicast.EventOutput, off: len(r.stream), n: len(p)})
	r.stream = append(r.stream, p...)
	r.queued = true
}

// flush writes what the queued events settled (see settle).
func (r *recorder) flush() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil || !r.queued {
		return
	}
	r.queued = false
	r.settle(false)
}

// input records bytes sent to the program on behalf of the user. The
// Session sends it outside its lock, so it writes at once.
func (r *recorder) input(b []byte) {
	if r == nil || len(b) == 0 {
		return
	}
	r.event(asciicast.EventInput, r.redact(string(b)))
	r.flush()
}

// resize and marker queue their events; flush writes them.
func (r *recorder) resize(s Size) {
	if r == nil {
		return
	}
	r.event(asciicast.EventResize, asciicast.ResizeData(s.Rows, s.Cols))
}

func (r *recorder) marker(label string) {
	if r == nil {
		return
	}
	r.event(asciicast.EventMarker, r.redact(label))
}

func (r *recorder) redact(s string) string {
	if r.red == nil {
		return s
	}
	return r.red.Redact(s)
}

func (r *recorder) event(code asciicast.EventType, data string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.pending = append(r.pending, pendingEvent{t: time.Since(r.start), code: code, off: len(r.stream), data: data})
	r.queued = true
}

// close writes everything still held and closes the file. It returns the
// first write error of the recording, if any.
func (r *recorder) close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	if r.err == nil {
		r.settle(true)
	}
	r.closed = true
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	if r.err != nil {
		return fmt.Errorf("ptywright: record %q: %w", r.path, r.err)
	}
	return nil
}

// abort closes and removes a recording that never started.
func (r *recorder) abort() {
	_ = r.f.Close()       // Best effort: the file is being removed.
	_ = os.Remove(r.path) // Best effort: we created it with O_EXCL, so it is ours.
}

// settle writes every pending event that can no longer change: all of them
// when final.
func (r *recorder) settle(final bool) {
	var spans [][2]int
	var held string // the stream, as a string
	if r.red != nil {
		text := string(r.lookbehind) + string(r.stream)
		held = text[len(r.lookbehind):]
		spans = streamSpans(r.red, text, len(r.lookbehind))
	} else {
		held = string(r.stream)
	}
	cut := len(r.stream)
	if !final && len(r.pending) <= recordMaxPending {
		cut = r.safeCut(spans)
	}
	r.emit(held, cut, spans)
	if len(r.out) > 0 {
		if _, err := r.f.Write(r.out); err != nil {
			r.err = err // Disk full? The recording stops; close reports it.
		}
		r.out = r.out[:0]
	}
}

// safeCut returns how much of the stream can be written now.
func (r *recorder) safeCut(spans [][2]int) int {
	if r.red == nil {
		return len(r.stream) - incompleteUTF8(r.stream)
	}
	return streamCut(r.stream, spans, r.maxLit)
}

// emit writes the pending events up to stream offset cut, redacting the
// output (held: the stream as a string) with spans (stream coordinates,
// sorted), and keeps the rest.
func (r *recorder) emit(held string, cut int, spans [][2]int) {
	var carry []byte // an incomplete UTF-8 sequence moving to the next piece
	i := 0
	for ; i < len(r.pending); i++ {
		ev := &r.pending[i]
		if ev.code != asciicast.EventOutput {
			r.out = asciicast.AppendEvent(r.out, ev.t, ev.code, ev.data)
			continue
		}
		a, b := ev.off, ev.off+ev.n
		if a >= cut {
			break
		}
		end := min(b, cut)
		piece := appendRedacted(carry, held, a, end, spans, r.red.replacementText())
		carry = nil
		if k := incompleteUTF8(piece); k > 0 && end < cut {
			carry = append([]byte(nil), piece[len(piece)-k:]...)
			piece = piece[:len(piece)-k]
		}
		if len(piece) > 0 {
			r.out = asciicast.AppendEvent(r.out, ev.t, asciicast.EventOutput, string(piece))
		}
		if end < b {
			ev.off, ev.n = end, b-end
			break
		}
	}
	if len(carry) > 0 { // Only when the cut split a sequence: write it as is.
		r.out = asciicast.AppendEvent(r.out, r.pending[i-1].t, asciicast.EventOutput, string(carry))
	}
	r.pending = r.pending[:copy(r.pending, r.pending[i:])]
	for j := range r.pending {
		r.pending[j].off = max(r.pending[j].off-cut, 0)
	}
	r.lookbehind = append(r.lookbehind, r.stream[:cut]...)
	if over := len(r.lookbehind) - recordLookbehind; over > 0 {
		r.lookbehind = r.lookbehind[:copy(r.lookbehind, r.lookbehind[over:])]
	}
	r.stream = r.stream[:copy(r.stream, r.stream[cut:])]
}

// openRawSink opens the file that receives raw, unredacted PTY bytes.
//
// A new file is created with O_EXCL and mode 0600: raw output holds secrets,
// and O_EXCL also refuses a pre-planted symlink. appendMode appends to an
// existing file, leaving its permissions alone. On Windows the mode is
// ignored (default ACLs). created says the file is new (a failed Start
// removes it). Errors name the path.
func openRawSink(path string, appendMode bool) (f *os.File, created bool, err error) {
	if path == "" {
		return nil, false, &FieldError{Field: "raw_transcript_path", Reason: "must not be empty", Err: fs.ErrInvalid}
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	created = err == nil
	if appendMode && errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0) // The file that is there.
	}
	switch {
	case !appendMode && errors.Is(err, fs.ErrExist):
		return nil, false, &rawSinkExistsError{path: path, err: err}
	case err != nil:
		return nil, false, fmt.Errorf("raw transcript: %w", err)
	}
	return f, created, nil
}

// rawSinkExistsError names the path once and matches both ErrFileExists
// and the underlying *fs.PathError (fs.ErrExist).
type rawSinkExistsError struct {
	path string
	err  error
}

func (e *rawSinkExistsError) Error() string {
	return fmt.Sprintf("raw transcript %q: raw transcript file already exists (refusing to overwrite; use append mode to add to it)", e.path)
}

func (e *rawSinkExistsError) Unwrap() []error { return []error{ErrFileExists, e.err} }
