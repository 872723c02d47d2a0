package runes

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// TestRuneWalkers compares the word-at-a-time helpers with rune slices on
// every prefix and count of a mixed-width string.
func TestRuneWalkers(t *testing.T) {
	s := "aé€🙂bcdefghij🙂🙂ééé€€€klmnopq日本語🙂x"
	for end := 0; end <= len(s); end++ {
		if end < len(s) && !utf8.RuneStart(s[end]) {
			continue
		}
		b := []byte(s[:end])
		runes := []rune(string(b))
		require.Equal(t, len(runes), Count(b), "count %q", b)
		for n := 0; n <= len(runes)+2; n++ {
			want := len(string(runes[:min(n, len(runes))]))
			require.Equal(t, want, Skip(b, n), "skip %d of %q", n, b)
			wantLast := len(b) - len(string(runes[len(runes)-min(n, len(runes)):]))
			require.Equal(t, wantLast, Last(b, n), "last %d of %q", n, b)
		}
	}
}

// TestValidPrefixMatchesDecoding holds ValidPrefix, and its ASCII run
// found a word at a time, to decoding rune by rune, on random mixes of
// ASCII runs of every length around a word, multi-byte characters and
// runs of them (rules) broken anywhere, invalid bytes and a sequence cut
// at the end.
func TestValidPrefixMatchesDecoding(t *testing.T) {
	pieces := []string{"a", "bcdefgh", "ijklmnopq", "\r\n", "\x1b[0m", "é", "€", "🙂", "\xff", "\x80", "\xed\xa0\x80", "\xf0\x9f", "\xe2\x82",
		"─", "──", "────────────", "───€", "╭─────╮", "\xe2\x94", "\x94\x80"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		wantN, wantRunes := 0, 0
		for wantN < len(b) {
			r, size := utf8.DecodeRune(b[wantN:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			wantN += size
			wantRunes++
		}
		n, runes := ValidPrefix(b)
		require.Equal(t, wantN, n, "%q", b)
		require.Equal(t, wantRunes, runes, "%q", b)
		require.Equal(t, utf8.RuneCount(b[:n]), Count(b[:n]), "%q", b)
	}
}
