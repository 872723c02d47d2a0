package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

// escapeInWordRef is escapeInWord as it was before it read CSIs itself:
// the reference the fast one must equal.
func escapeInWordRef(s string) bool {
	if strings.IndexByte(s, '\b') >= 0 {
		return true
	}
	for i := strings.IndexByte(s, 0x1b); i >= 0; {
		j, drop := i, true
		for j < len(s) && s[j] == 0x1b {
			var d bool
			j, d = escapeEnd(s, j)
			drop = drop && d
		}
		if drop && i > 0 && wordByte(s[i-1]) && j < len(s) && wordByte(s[j]) {
			return true
		}
		k := strings.IndexByte(s[j:], 0x1b)
		if k < 0 {
			break
		}
		i = j + k
	}
	return false
}

// TestVisibleMatchesReference: the view and its way back are the
// reference's, on random terminal-like texts.
func TestVisibleMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		s := randomEscapeText(rng)
		require.Equal(t, visibleRef(s), visible(s), "%q", s)
	}
}

// visibleRef is visible as it was before it copied runs of text at once:
// the reference the fast one must equal.
func visibleRef(s string) view {
	b := make([]byte, 0, len(s))
	segs := []viewSeg{{0, 0}}
	resume := func(raw int) {
		// Segments past the view's end were popped by a backspace.
		for len(segs) > 1 && segs[len(segs)-1].at >= len(b) {
			segs = segs[:len(segs)-1]
		}
		segs = append(segs, viewSeg{len(b), raw})
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == 0x1b:
			end, drop := escapeEnd(s, i)
			if !drop {
				b = append(b, s[i:end]...) // kept: it breaks a run
				i = end
				continue
			}
			i = end
			resume(i)
		case c == '\b':
			if r, size := utf8.DecodeLastRune(b); size > 0 && r >= 0x20 && r != 0x7f {
				b = b[:len(b)-size]
			}
			i++
			resume(i)
		default:
			b = append(b, c)
			i++
		}
	}
	return view{text: string(b), segs: segs}
}

// escapePieces are what terminal output is made of, for random texts.
var escapePieces = []string{
	"a", "Z", "0", "_", "-", " ", "\t", "\r\n", "\x7f", "─", "é", "\xff",
	"\x1b", "\x1b[", "\x1b[1m", "\x1b[0m", "\x1b[38;5;208m", "\x1b[K", "\x1b[2K", "\x1b[1;1H", "\x1b[?25l",
	"\x1b[1", "\x1b[1;", "\x1b[ m", "\x1b[\x01", "\x1b[\x7f", "\x1b(B", "\x1b7", "\x1b\\", "\x1b]8;;http://x\x07",
	"\x1b]0;t\x1b\\", "\x1bP", "\x1b_x", "\x1b]", "\b", "sk-", "KEY=", "token",
	"\x1b[38;2;215;119;87m", "\x1b[38;2;215;119;87", "plain text of seventeen+ bytes",
}

func randomEscapeText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(24) {
		b.WriteString(escapePieces[rng.IntN(len(escapePieces))])
	}
	return b.String()
}

// TestEscapeInWordMatchesReference: the fast escapeInWord says what the
// reference says on random terminal-like texts, and on every prefix and
// suffix of real TUI output (cut anywhere, even inside a sequence).
func TestEscapeInWordMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		s := randomEscapeText(rng)
		require.Equal(t, escapeInWordRef(s), escapeInWord(s), "%q", s)
	}
	for _, s := range []string{string(workload.ClaudeRedraws(4096, 24, 80)), string(workload.MixedRedraws(4096, 24))} {
		for i := range len(s) {
			require.Equal(t, escapeInWordRef(s[i:]), escapeInWord(s[i:]), "suffix %d", i)
			require.Equal(t, escapeInWordRef(s[:i]), escapeInWord(s[:i]), "prefix %d", i)
		}
	}
}

func FuzzEscapeInWord(f *testing.F) {
	f.Add("a\x1b[1mb")
	f.Add("5;1H\x1b[2K\x1b[1;31m0012\x1b[0m ")
	f.Add("x\x1b[1\x01y\x1b]8;;u\x07z")
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, escapeInWordRef(s), escapeInWord(s))
		require.Equal(t, visibleRef(s), visible(s))
	})
}

// BenchmarkEscapeInWord: the check ThroughEscapes runs on every text, on
// a TUI's output, where it finds no escape inside a word.
func BenchmarkEscapeInWord(b *testing.B) {
	for _, in := range []struct{ name, text string }{
		{"mixed", string(workload.MixedRedraws(128<<10, 24))},
		{"claude", string(workload.ClaudeRedraws(128<<10, 24, 80))},
	} {
		b.Run(in.name+"/ref", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				escapeInWordRef(in.text)
			}
		})
		b.Run(in.name+"/fast", func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				escapeInWord(in.text)
			}
		})
	}
}

// BenchmarkSpans: the default patterns' scan on a TUI's output, where it
// finds nothing.
func BenchmarkSpans(b *testing.B) {
	for _, in := range []struct{ name, text string }{
		{"mixed", string(workload.MixedRedraws(128<<10, 24))},
		{"claude", string(workload.ClaudeRedraws(128<<10, 24, 80))},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				Spans(in.text, "[REDACTED]", nil)
			}
		})
	}
}

// BenchmarkThroughEscapes: ThroughEscapes with the default patterns on a
// TUI's output, as the output stream calls it; "mixed-cut" starts inside
// a cursor move, so that the view is built (an escape sequence stands
// between "1H", which reads as text, and a digit).
func BenchmarkThroughEscapes(b *testing.B) {
	spans := func(s string) [][2]int { return Spans(s, "[REDACTED]", nil) }
	mixed := string(workload.MixedRedraws(128<<10, 24))
	for _, in := range []struct{ name, text string }{
		{"mixed", mixed},
		{"mixed-cut", mixed[strings.Index(mixed, "1H")+1:]},
		{"claude", string(workload.ClaudeRedraws(128<<10, 24, 80))},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				ThroughEscapes(in.text, spans)
			}
		})
	}
}
