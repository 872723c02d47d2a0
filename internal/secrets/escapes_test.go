package secrets

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// key finds "sk-" followed by at least 20 letters and digits: enough of a
// pattern to test the view with.
func key(s string) [][2]int {
	var out [][2]int
	for off := 0; ; {
		i := strings.Index(s[off:], "sk-")
		if i < 0 {
			return out
		}
		a, b := off+i, off+i+3
		for b < len(s) && (s[b] >= 'a' && s[b] <= 'z' || s[b] >= '0' && s[b] <= '9') {
			b++
		}
		if b-a-3 >= 20 {
			out = append(out, [2]int{a, b})
		}
		off = b
	}
}

// TestThroughEscapesFindsBrokenSecrets: a key broken by a colour change, a
// hyperlink or an erased typo is found whole, its span covering what
// broke it.
func TestThroughEscapesFindsBrokenSecrets(t *testing.T) {
	head, tail := "sk-abcdefghij", "klmnopqrst0123"
	for _, brk := range []string{"\x1b[1m", "\x1b[0m\x1b[38;5;208m", "X\b", "X\b \b", "XY\b\b", "X\b\x1b[K", "\x1b]8;;http://x\x07", "\x1b(B\x1b[m"} {
		s := "KEY " + head + brk + tail + "\x1b[0m after"
		got := ThroughEscapes(s, key)
		require.Equal(t, [][2]int{{4, 4 + len(head) + len(brk) + len(tail)}}, got, "%q", s)
	}
}

// TestThroughEscapesLeavesOrdinaryText: coloured words, a key whole
// between colour changes, and pieces a cursor move separates are found as
// on the raw text.
func TestThroughEscapesLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"\x1b[31merror\x1b[0m: file\x1b[1mname\x1b[0m.go not found",
		"\x1b[1msk-abcdefghijklmnopqrstuvwxyz\x1b[0m done",
		"sk-abcdefghij\x1b[2;1Hklmnopqrst0123",  // moved: two places on screen
		"sk-abcdefghij\x1b[1Eklmnopqrst0123",    // next line
		"sk-abcdefghij \x1b[1mklmnopqrst0123 x", // a blank: two words
	} {
		require.Equal(t, key(s), ThroughEscapes(s, key), "%q", s)
	}
	require.False(t, escapeInWord("\x1b[31merror\x1b[0m ok\r\n\x1b[1E\x1b[Kline"), "the fast path")
}

// TestVisibleMapsBack: every byte of the view maps back to the raw byte
// it came from.
func TestVisibleMapsBack(t *testing.T) {
	s := "a\x1b[1mbc\bd\x1b]0;t\x07e中\b文\x1b[Kf\x1b[2;3Hg\b \bh"
	v := visible(s)
	require.Equal(t, "abde文f\x1b[2;3Hh", v.text)
	for i := range len(v.text) {
		require.Equal(t, v.text[i], s[v.orig(i)], "view byte %d", i)
	}
}
