package ptywright

import (
	"bytes"
	"fmt"
	"maps"
	"unicode/utf8"

	"ptywright/internal/runes"
	"ptywright/internal/secrets"
)

// defaultTranscriptMaxChars is the transcript bound when none is given:
// 128 KiB of characters (runes), as the JSON-RPC reference specifies.
const defaultTranscriptMaxChars = 128 * 1024

// maxTranscriptMarkers bounds the distinct marker labels per transcript, so a
// client looping over fresh labels cannot grow memory without limit.
const maxTranscriptMarkers = 64

// transcript is the bounded text record of everything the child printed, as
// valid UTF-8. Positions are absolute rune counts since the session started,
// so cursors and markers stay meaningful after the front has been cut.
//
// It is not synchronised: the Session holds its lock around every call.
type transcript struct {
	maxChars int
	// buf[off:] is the retained text: valid UTF-8 of exactly runes runes,
	// never more than maxChars. Dropped text before off is reclaimed lazily
	// (see trim) so cutting the front is amortised O(1) per byte.
	buf   []byte
	off   int
	runes int
	// start is the absolute rune index of buf[off].
	start int64
	// pending holds an incomplete UTF-8 sequence from the end of the last
	// Write, completed (or found invalid) by the next one.
	pending  [utf8.UTFMax]byte
	npending int
	markers  map[string]int64
	// asciiFrom: buf[asciiFrom:] is all ASCII (it is 0, or the end of
	// the last write that held another character), so cutting the front
	// there, as a flood of ASCII output does on every write, is
	// arithmetic.
	asciiFrom int
	// buf[plainFrom:plainTo] is known to be plain (secrets.Plain), so a
	// wait's tail there needs no redaction with the default patterns,
	// and the next needs only what was written since scanned (plainSince).
	plainFrom, plainTo int
}

// newTranscript returns an empty transcript keeping at most maxChars runes;
// maxChars <= 0 means defaultTranscriptMaxChars.
func newTranscript(maxChars int) *transcript {
	if maxChars <= 0 {
		maxChars = defaultTranscriptMaxChars
	}
	return &transcript{maxChars: maxChars}
}

// Write appends PTY output. A multi-byte sequence split across calls is held
// back until completed; invalid bytes become U+FFFD, one per byte.
func (t *transcript) Write(p []byte) {
	if t.npending > 0 {
		p = t.completePending(p)
	}
	for len(p) > 0 {
		n, runes := runes.ValidPrefix(p)
		t.appendValid(p[:n], runes)
		p = p[n:]
		if len(p) == 0 {
			break
		}
		if !utf8.FullRune(p) {
			// An incomplete sequence can only be at the end of p.
			t.npending = copy(t.pending[:], p)
			break
		}
		t.appendValid([]byte(string(utf8.RuneError)), 1)
		p = p[1:]
	}
	t.trim()
}

// completePending decodes the held-back sequence together with the first
// bytes of p and returns the rest of p.
func (t *transcript) completePending(p []byte) []byte {
	var j [2 * utf8.UTFMax]byte
	np := copy(j[:], t.pending[:t.npending])
	jb := j[:np+copy(j[np:], p)]
	pos := 0
	for pos < np {
		if !utf8.FullRune(jb[pos:]) {
			// jb holds at least UTFMax bytes past pos unless it holds all of
			// p, so this is still incomplete: keep waiting.
			t.npending = copy(t.pending[:], jb[pos:])
			return nil
		}
		r, size := utf8.DecodeRune(jb[pos:])
		if r == utf8.RuneError && size == 1 {
			t.appendValid([]byte(string(utf8.RuneError)), 1)
		} else {
			t.appendValid(jb[pos:pos+size], 1)
		}
		pos += size
	}
	t.npending = 0
	return p[pos-np:]
}

func (t *transcript) appendValid(b []byte, runes int) {
	t.buf = append(t.buf, b...)
	t.runes += runes
	if runes != len(b) {
		t.asciiFrom = len(t.buf) // Not all ASCII: only what follows is known to be.
	}
}

// transcriptContext is how much dropped text before the retained start the
// transcript keeps (bytes) for redaction only: a read that starts at the
// cut, or anywhere inside the text, redacts with the text before it, so a
// secret cut in two shows neither half (see withContextFor). Secrets longer
// than this that straddle a cut cannot be recognised.
const transcriptContext = 4096

// trim drops runes beyond maxChars from the front. The bytes stay in buf until
// the dropped part is at least as large as the retained part; then one copy
// moves the retained text down (with transcriptContext bytes before it), so
// each byte is copied at most once more than it is written.
func (t *transcript) trim() {
	excess := t.runes - t.maxChars
	if excess <= 0 {
		return
	}
	if t.off >= t.asciiFrom {
		t.off += excess // a byte a rune
	} else {
		t.off += runes.Skip(t.buf[t.off:], excess)
	}
	t.runes -= excess
	t.start += int64(excess)
	keep := t.contextStart(t.off)
	if keep >= len(t.buf)-keep {
		n := copy(t.buf, t.buf[keep:])
		t.buf = t.buf[:n]
		t.off -= keep
		t.plainFrom, t.plainTo = max(t.plainFrom-keep, 0), max(t.plainTo-keep, 0)
		t.asciiFrom = max(t.asciiFrom-keep, 0)
	}
}

// plainSince reports whether text, a copy of buf[c:], is plain
// (secrets.Plain), scanning only what was written since an earlier call
// found the text before it plain: a program that prints plain lines (a
// shell, a REPL) has each wait's tail checked by its new lines alone.
func (t *transcript) plainSince(c int, text string) bool {
	known := c >= t.plainFrom && c <= t.plainTo
	from := c
	if known {
		from = max(c, t.plainTo-(secrets.MaxTriggerLen-1))
	}
	if !secrets.Plain(text[from-c:]) {
		t.plainFrom, t.plainTo = 0, 0
		return false
	}
	if !known || from == c {
		// Only what this scan saw is known plain: a scan that did not
		// reach back over the last one's end may have started inside a
		// trigger word that end cut.
		t.plainFrom = c
	}
	t.plainTo = len(t.buf)
	return true
}

// contextStart returns where the context of the text at byte i of buf
// starts: up to transcriptContext bytes back, on a rune start.
func (t *transcript) contextStart(i int) int {
	c := max(0, i-transcriptContext)
	for c < i && !utf8.RuneStart(t.buf[c]) {
		c++
	}
	return c
}

// withContextFor returns a copy of the text from byte i of buf on, after
// the part of its context (contextStart) r needs: the text is s[split:].
// None when r hides nothing; with the default patterns alone, from the
// start of i's line (secrets.ContextStart); all of it for extra literals
// or regexes, which may span lines. A short read scans little more.
func (t *transcript) withContextFor(i int, r *Redactor) (s string, split int) {
	r = r.orDefault()
	c := t.contextStart(i)
	switch {
	case !r.enabled:
		c = i
	case builtinOnly(r):
		c += secrets.ContextStart(t.buf[c:i], i-c)
	}
	return string(t.buf[c:]), i - c
}

// tailStart returns the byte index in buf where the last n retained runes
// begin.
func (t *transcript) tailStart(n int) int {
	if n >= t.runes {
		return t.off
	}
	return t.lastRunes(n)
}

// lastRunes returns the byte index in buf where the last n runes begin
// (0 <= n <= t.runes): by arithmetic when they are within the ASCII
// suffix, else counted from whichever end of the retained text is nearer
// (deltas and tails are usually short).
func (t *transcript) lastRunes(n int) int {
	if i := len(t.buf) - n; i >= t.asciiFrom {
		return i // a byte a rune
	}
	if b := t.retained(); n <= t.runes/2 {
		return t.off + runes.Last(b, n)
	}
	return t.off + runes.Skip(t.retained(), t.runes-n)
}

// sinceStart returns the byte index in buf and the absolute rune position
// where the text since cursor begins (the oldest retained rune if the bound
// cut it: dropped), and the cursor at the end.
func (t *transcript) sinceStart(cursor int64) (i int, at, end int64, dropped bool) {
	end = t.Cursor()
	if cursor >= end {
		return len(t.buf), end, end, false
	}
	cursor = max(cursor, 0)
	if cursor < t.start {
		dropped = true
		cursor = t.start
	}
	return t.lastRunes(int(end - cursor)), cursor, end, dropped
}

// retained returns the retained text, valid UTF-8.
func (t *transcript) retained() []byte { return t.buf[t.off:] }

// containsSince reports whether the retained text contains v, searching
// only after cursor searched (0: all), less len(v)-1 characters, where an
// earlier look did not find it. next is searched for the next look: the
// end, or searched itself when v was found (a later look finds it again).
func (t *transcript) containsSince(v string, searched int64) (found bool, next int64) {
	from := t.off
	if searched > 0 {
		from, _, _, _ = t.sinceStart(searched - int64(utf8.RuneCountInString(v)-1))
	}
	if bytes.Contains(t.buf[from:], []byte(v)) {
		return true, searched
	}
	return false, t.Cursor()
}

// String returns the retained text (at most maxChars runes).
func (t *transcript) String() string { return string(t.retained()) }

// Tail returns the last n runes of the retained text.
func (t *transcript) Tail(n int) string {
	if n <= 0 {
		return ""
	}
	return string(t.buf[t.tailStart(n):])
}

// Cursor returns the absolute number of runes ever written.
func (t *transcript) Cursor() int64 { return t.start + int64(t.runes) }

// Since returns the text written since cursor and the cursor to pass next
// time. dropped reports that part of that text was already cut by the bound,
// in which case text starts at the oldest retained rune. A cursor at or past
// the end returns "" and the current cursor.
func (t *transcript) Since(cursor int64) (text string, next int64, dropped bool) {
	i, _, end, dropped := t.sinceStart(cursor)
	return string(t.buf[i:]), end, dropped
}

// Mark records Cursor() under label, moving it if the label exists.
func (t *transcript) Mark(label string) error {
	if label == "" {
		return &FieldError{Field: "label", Reason: "must not be empty", Err: ErrInvalidMarker}
	}
	if _, ok := t.markers[label]; !ok && len(t.markers) >= maxTranscriptMarkers {
		return &FieldError{Field: "label", Reason: fmt.Sprintf("cannot add a new marker: the transcript already has the maximum of %d distinct labels", maxTranscriptMarkers), Err: ErrInvalidMarker}
	}
	if t.markers == nil {
		t.markers = make(map[string]int64)
	}
	t.markers[label] = t.Cursor()
	return nil
}

// Markers returns a copy of the label to cursor map.
func (t *transcript) Markers() map[string]int64 {
	out := make(map[string]int64, len(t.markers))
	maps.Copy(out, t.markers)
	return out
}

// The Session's readers of its transcript, each in one hold of Session.mu.

// Transcript returns the retained transcript (at most TranscriptMaxChars
// characters), redacted with r: nil means the session's redactor
// (Options.Redactor), NoRedaction returns it raw. It is redacted with the
// text the bound cut off before it, so a secret cut in two does not show
// its tail.
func (s *Session) Transcript(r *Redactor) string {
	r = s.redactor(r)
	s.mu.Lock()
	text, split := s.tr.withContextFor(s.tr.off, r)
	s.mu.Unlock()
	return redactAfter(r, text, split)
}

// transcriptTailN returns the last n characters of the transcript,
// redacted with r (nil: the session's redactor) together with the text
// before them.
func (s *Session) transcriptTailN(r *Redactor, n int) string {
	r = s.redactor(r)
	s.mu.Lock()
	i := s.tr.tailStart(n)
	text, split := s.tr.withContextFor(i, r)
	plain := r.enabled && builtinOnly(r) && s.tr.plainSince(i-split, text)
	s.mu.Unlock()
	if plain {
		return text[split:]
	}
	return redactAfter(r, text, split)
}

// TranscriptCursor returns the transcript's write position, counted in
// characters since the session started.
func (s *Session) TranscriptCursor() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.Cursor()
}

// Markers returns the transcript markers by label.
func (s *Session) Markers() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.Markers()
}

// transcriptContainsSince searches the transcript under the session's
// lock (see transcript.containsSince).
func (s *Session) transcriptContainsSince(v string, searched int64) (bool, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.containsSince(v, searched)
}

// transcriptText is the whole transcript, read under the session's lock.
func (s *Session) transcriptText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.String()
}

// transcriptMarks are the transcript's markers and cursor, read together
// under the session's lock.
func (s *Session) transcriptMarks() (map[string]int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.Markers(), s.tr.Cursor()
}

// transcriptTail is a wait's evidence: the last transcriptTailChars
// characters, redacted so that a secret the cut starts in stays hidden.
func (s *Session) transcriptTail(r *Redactor) string {
	return s.transcriptTailN(r, transcriptTailChars)
}
