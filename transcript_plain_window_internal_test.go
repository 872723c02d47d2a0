package ptywright

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlainTailsOfALongLineAreRedactedLikeAnyOther: a line longer than
// the transcript's context window (4096 bytes), so that a tail's text
// starts at the window's start, which can fall inside a trigger word.
// A first tail ends in the middle of "token"; more of the line follows
// with the value; a second tail starts at the window's start between
// "to" and "ken=" (nothing to hide in it: plain, and right to be); a
// third, longer tail holds "token=<value>" whole and must be redacted as
// the full redaction does. transcript.plainSince scans the third only
// from where the second's scan ended (less MaxTriggerLen-1 bytes), and
// takes everything before it as known plain, though the second's scan
// began after the trigger's start and never saw the word the boundary at
// the first's end cut: the third tail is returned with the secret raw.
//
// A wait asks for its tail with one n (transcriptTailChars), so the
// start of each wait's text never goes back and the third call cannot
// happen through a wait today; TestPlainTailsAreRedactedLikeAnyOther
// asks with any n and holds plainSince to the full redaction for it.
func TestPlainTailsOfALongLineAreRedactedLikeAnyOther(t *testing.T) {
	s, err := Start(Options{Program: "/bin/sleep", Args: []string{"1000"}})
	require.NoError(t, err)
	defer func() { _ = s.Close() }() // Best effort: the test is done.
	const value = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	check := func(n int) string {
		t.Helper()
		s.mu.Lock()
		text, split := s.tr.withContextFor(s.tr.tailStart(n), nil)
		s.mu.Unlock()
		got, want := s.transcriptTailN(nil, n), redactAfter(nil, text, split)
		if got != want {
			t.Fatalf("tail of %d characters differs from the one redacted in full; it shows the value raw: %v", n, strings.Contains(got, value))
		}
		return got
	}
	filler := strings.Repeat("plain words ", 420)[:5000] // no newline: one line
	s.feed([][]byte{[]byte(filler + "tok")})
	first := len(filler) + 3
	check(first) // all of it: plain, the known range is [0, first)
	s.feed([][]byte{[]byte("en=" + value + " " + filler)})
	total := first + len("en="+value+" ") + len(filler)
	// The tail whose text starts at the window's start, first-1: "ken=...".
	tail := check(total - (first - 1 + transcriptContext))
	require.False(t, strings.HasPrefix(tail, "token"))
	// The whole line again: "token=<value>" is in it.
	require.NotContains(t, check(total), value)
}
