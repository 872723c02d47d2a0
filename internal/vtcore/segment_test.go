package vtcore

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"
)

// TestSimpleRunesAlwaysBreak checks the shortcut of nextCluster against the
// segmenter: every simple rune is a cluster of its own next to simple
// runes, itself included, so it never extends, prepends or pairs.
func TestSimpleRunesAlwaysBreak(t *testing.T) {
	partners := []string{"a", "中", "─", "é", "🙂", "ｱ"}
	checked := 0
	for r := rune(0); r <= 0x1ffff; r++ {
		if !simpleRune(r) {
			continue
		}
		s := string(r)
		for _, p := range append(partners, s) {
			c, _ := ansi.FirstGraphemeCluster(s+p, ansi.GraphemeWidth)
			require.Equal(t, s, c, "U+%04X then %q", r, p)
			c, _ = ansi.FirstGraphemeCluster(p+s, ansi.GraphemeWidth)
			require.Equal(t, p, c, "%q then U+%04X", p, r)
		}
		checked++
	}
	require.Greater(t, checked, 20000)
}

func TestNextClusterMatchesSegmenter(t *testing.T) {
	term := New(1, 1, nil)
	for _, s := range []string{"ab", "中文", "e\u0301x", "─\u0301", "👍🏽!", "🇫🇷x", "カ\u3099", "\u0600x", "a\u200db", "❤\ufe0f", "x", "中"} {
		for g := []byte(s); len(g) > 0; {
			wantC, wantW := ansi.FirstGraphemeCluster(g, ansi.GraphemeWidth)
			c, w := term.nextCluster(g)
			require.Equal(t, string(wantC), string(c), "%q", g)
			require.Equal(t, wantW, w, "%q", g)
			g = g[len(c):]
		}
	}
}
