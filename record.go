package ptywright

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrRecordingExists is returned when Options.RecordPath names an existing
// file: a recording is never overwritten. It also matches fs.ErrExist.
var ErrRecordingExists = fmt.Errorf("recording file already exists (refusing to overwrite): %w", fs.ErrExist)

// Limits of the redacting recorder's hold-back (see recorder).
const (
	// recordHoldMax: a control-free run longer than this is cut anyway,
	// keeping recordHoldKeep bytes held.
	recordHoldMax  = 4096
	recordHoldKeep = 1024
	// recordHoldHard: a secret straddling the cut is held back only while
	// the held text stays under this, so memory stays bounded.
	recordHoldHard = 64 * 1024
	// recordLookbehind is how much already-written output the redactor sees
	// again before the held text, so patterns that look back (the start of
	// an identifier, an escape sequence before a word) behave as on the
	// whole stream.
	recordLookbehind = 1024
	// recordSpanContext is how far before a straddling secret the cut moves,
	// so its key ("API_KEY=") stays held with it.
	recordSpanContext = 256
	// recordMaxPending bounds the events held behind unsettled output.
	recordMaxPending = 4096
)

// recorder writes a Session as an asciicast v2 file: output events from the
// reader goroutine in the order the bytes were read, input events for what
// the Session sent (never the terminal's replies), resize and marker events.
//
// Redaction has to work on a stream cut into arbitrary chunks, where a
// secret can be split across two reads. The recorder therefore holds back
// the output after the last control character (other than tab) or complete
// escape sequence: no secret the default patterns hide contains one, and
// the redactor sees the last recordLookbehind bytes again before the held
// text, so everything redacts exactly as the whole stream would. The held bytes keep the time they
// arrived at and are written as their own event, before anything that came
// later, once more output settles them or the session closes: times in the
// file are those of the live session, only the write to disk is deferred.
// Input, resize and marker events queue behind held output, so the file
// stays in time order. Extra literals hold back their length minus one;
// extra regexes are guaranteed across chunks when their matches contain no
// control character. A control-free run longer than recordHoldMax is cut
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
}

type pendingEvent struct {
	t    time.Duration
	code EventType
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
			red = DefaultRedactor()
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
			return nil, &FieldError{Field: "record_path", Reason: fmt.Sprintf("%q: %v", path, ErrRecordingExists), Err: ErrRecordingExists}
		}
		return nil, fmt.Errorf("record_path: %w", err)
	}
	r := &recorder{f: f, path: path, start: time.Now(), red: red}
	if red != nil {
		if !red.enabled {
			r.red = nil
		}
		for _, l := range red.literals {
			r.maxLit = max(r.maxLit, len(l))
		}
	}
	h := RecordingHeader{Version: 2, Width: size.Cols, Height: size.Rows, Timestamp: r.start.Unix(), Env: headerEnv(env)}
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

// output records bytes the program wrote. Called from the reader goroutine.
func (r *recorder) output(p []byte) {
	if r == nil || len(p) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.pending = append(r.pending, pendingEvent{t: time.Since(r.start), code: EventOutput, off: len(r.stream), n: len(p)})
	r.stream = append(r.stream, p...)
	r.settle(false)
}

// input records bytes sent to the program on behalf of the user.
func (r *recorder) input(b []byte) {
	if r == nil || len(b) == 0 {
		return
	}
	r.event(EventInput, r.redact(string(b)))
}

func (r *recorder) resize(s Size) {
	if r == nil {
		return
	}
	r.event(EventResize, resizeData(s))
}

func (r *recorder) marker(label string) {
	if r == nil {
		return
	}
	r.event(EventMarker, r.redact(label))
}

func (r *recorder) redact(s string) string {
	if r.red == nil {
		return s
	}
	return r.red.Redact(s)
}

func (r *recorder) event(code EventType, data string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.err != nil {
		return
	}
	r.pending = append(r.pending, pendingEvent{t: time.Since(r.start), code: code, off: len(r.stream), data: data})
	r.settle(false)
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
	if r.red != nil && len(r.stream) > 0 {
		// Spans over lookbehind + stream, moved into stream coordinates.
		text := string(r.lookbehind) + string(r.stream)
		lb := len(r.lookbehind)
		for _, sp := range r.red.Spans(text) {
			if sp[1] <= lb {
				continue
			}
			spans = append(spans, [2]int{max(sp[0]-lb, 0), sp[1] - lb})
		}
	}
	cut := len(r.stream)
	if !final && len(r.pending) <= recordMaxPending {
		cut = r.safeCut(spans)
	}
	r.emit(cut, spans)
	if len(r.out) > 0 {
		if _, err := r.f.Write(r.out); err != nil {
			r.err = err // Disk full? The recording stops; close reports it.
		}
		r.out = r.out[:0]
	}
}

// safeCut returns how much of the stream can be written now.
func (r *recorder) safeCut(spans [][2]int) int {
	s := r.stream
	n := len(s)
	if r.red == nil {
		return n - incompleteUTF8(s)
	}
	ctl := lastControlCut(s)
	cut := ctl
	if n-cut > recordHoldMax {
		cut = runeStartBefore(s, n-recordHoldKeep)
	}
	if r.maxLit > 1 && cut > n-(r.maxLit-1) {
		// A literal may have started in the last maxLit-1 bytes.
		cut = lastControlCut(s[:max(n-(r.maxLit-1), 0)])
	}
	for _, sp := range spans {
		if sp[0] < cut && sp[1] >= cut {
			// A secret reaches the cut and may go on: hold it with its key.
			back := max(sp[0]-recordSpanContext, 0)
			if ctl <= sp[0] && ctl > back {
				back = ctl
			}
			if n-back <= recordHoldHard {
				cut = runeStartBefore(s, back)
			}
			break
		}
	}
	return cut
}

// emit writes the pending events up to stream offset cut, redacting the
// output with spans (stream coordinates, sorted), and keeps the rest.
func (r *recorder) emit(cut int, spans [][2]int) {
	var carry []byte // an incomplete UTF-8 sequence moving to the next piece
	i := 0
	for ; i < len(r.pending); i++ {
		ev := &r.pending[i]
		if ev.code != EventOutput {
			r.out = appendEventLine(r.out, ev.t, string(ev.code), ev.data)
			continue
		}
		a, b := ev.off, ev.off+ev.n
		if a >= cut {
			break
		}
		end := min(b, cut)
		piece := append(carry, r.redactRange(a, end, spans)...)
		carry = nil
		if k := incompleteUTF8(piece); k > 0 && end < cut {
			carry = append([]byte(nil), piece[len(piece)-k:]...)
			piece = piece[:len(piece)-k]
		}
		if len(piece) > 0 {
			r.out = appendEventLine(r.out, ev.t, string(EventOutput), string(piece))
		}
		if end < b {
			ev.off, ev.n = end, b-end
			break
		}
	}
	if len(carry) > 0 { // Only when the cut split a sequence: write it as is.
		r.out = appendEventLine(r.out, r.pending[i-1].t, string(EventOutput), string(carry))
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

// redactRange returns stream[a:end] with the spans replaced. A span that
// started before a had its replacement written with the earlier piece.
func (r *recorder) redactRange(a, end int, spans [][2]int) []byte {
	s := r.stream
	var out []byte
	pos := a
	for _, sp := range spans {
		if sp[1] <= pos {
			continue
		}
		if sp[0] >= end {
			break
		}
		if sp[0] >= pos {
			out = append(out, s[pos:sp[0]]...)
			out = append(out, r.red.Replacement()...)
		}
		pos = min(sp[1], end)
	}
	return append(out, s[pos:end]...)
}

// lastControlCut returns where s can be cut so that no secret the default
// patterns hide can straddle the cut: after the last control character
// (other than tab: no secret contains one), or after the escape sequence it
// starts when that sequence is complete (its bytes cannot be part of a
// secret either), or before an incomplete one; 0 if s has none. A word
// right after the cut is still judged with the bytes before it, which the
// recorder keeps as lookbehind.
func lastControlCut(s []byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			if c != 0x1b {
				return i + 1
			}
			if escapeComplete(s[i:]) {
				return len(s)
			}
			return i
		}
	}
	return 0
}

// escapeComplete reports whether b is exactly one complete escape sequence:
// ESC [ parameters intermediates final (CSI) or ESC intermediates final.
// OSC and DCS strings end with BEL or ESC \, so they never qualify here.
func escapeComplete(b []byte) bool {
	i := 1
	if i < len(b) && b[i] == '[' {
		i++
		for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
			i++
		}
	} else if i < len(b) && (b[i] == ']' || b[i] == 'P' || b[i] == '_' || b[i] == '^' || b[i] == 'X') {
		return false // A string sequence: its text runs to its terminator.
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	return i == len(b)-1 && b[i] >= 0x30 && b[i] <= 0x7e
}

// incompleteUTF8 returns the length of a UTF-8 sequence cut off at the end
// of b (0 if b ends on a rune boundary or with an invalid byte).
func incompleteUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}

// runeStartBefore moves i back to the start of the rune it points into.
func runeStartBefore(s []byte, i int) int {
	for k := 0; k < utf8.UTFMax-1 && i > 0 && i < len(s) && !utf8.RuneStart(s[i]); k++ {
		i--
	}
	return i
}
