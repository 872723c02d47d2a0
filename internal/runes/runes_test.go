package runes

import (
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
