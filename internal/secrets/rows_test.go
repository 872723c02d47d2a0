package secrets

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"
)

// TestContinues: rows as the real programs lay them out (the captures in
// testdata/fixtures/*/CAPTURES.md, "Long secrets") continue or not.
func TestContinues(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
		cols       int
		indent     int
		glue, ok   bool
	}{
		{"claude prompt box: a key broken at the box's edge (cols-2)",
			"❯\u00a0my key is sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R",
			"  5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA please remember it", 80, 2, true, true},
		{"claude answer: a full row whose key goes on after the indent",
			"● Noted: the key you pasted, sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmih",
			"  A-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA, is an Anthropic API", 80, 2, true, true},
		{"claude answer: the token moved whole under 'Bearer'",
			"● The request sends the header Authorization: Bearer",
			"  qtc4xatws8phP9nhFyJfm-5di4P-zJ59-FHz5r1pY4OjE2jB to the API.", 80, 2, false, true},
		{"codex answer: broken after a hyphen far from the edge",
			"• fakeopenai: no scripted reply for: my key is sk-ant-api03-",
			"  PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-", 80, 2, true, true},
		{"codex composer: an overlong token moved down, then broken at cols-1",
			"  qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1pY4OjE2jBqtc4xatws8phP9nhFyJfm5di4PzJ59FH",
			"  z5r1pY4OjE2jB' fail", 80, 2, true, true},
		{"a row of cells: trailing blanks are not text",
			"❯ my key is sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R  ",
			"  5Kjp1vRt_1fjORS-6ilI8ihN5KXSc7Tvo-FdnXsiAA please remember it          ", 80, 2, true, true},
		{"prose at the edge: the next word moved down, a space between",
			"● The answer wraps here because the next word does not fit on this row of text",
			"  anymore, so it went down.", 80, 2, false, true},
		{"a short row: the next word would have fitted, a real line break",
			"● Set it in your shell profile:", "  export OPENAI_API_KEY=x", 80, 0, false, false},
		{"the next row is not indented", strings.Repeat("a", 79), "next", 80, 0, false, false},
		{"the next row is indented too deep", "● " + strings.Repeat("word ", 15), strings.Repeat(" ", 9) + "nested", 80, 0, false, false},
		{"the next row is blank", strings.Repeat("a", 79), "    ", 80, 0, false, false},
		{"unknown width", strings.Repeat("a", 79), "  more", 0, 0, false, false},
		{"a short word after a long row would have fitted",
			"● " + strings.Repeat("x", 70), "  ab", 80, 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			indent, glue, ok := Continues(tt.prev, tt.next, tt.cols)
			require.Equal(t, tt.ok, ok, "continues")
			require.Equal(t, tt.indent, indent, "indent")
			require.Equal(t, tt.glue, glue, "glue")
		})
	}
}

// TestRowSpansJoinsContinuations: spans found in rows joined as Continues
// says land on each row's own bytes, the indent and a cell row's trailing
// blanks left out.
func TestRowSpansJoinsContinuations(t *testing.T) {
	spans := func(s string) [][2]int { return Spans(s, "[REDACTED]", nil) }
	rows := []string{
		"● Noted: sk-ant-api03-" + strings.Repeat("Ab3", 10) + "     ", // a cell row: blanks after the text
		"  " + strings.Repeat("Zq9", 10) + "-tail and more",
		"plain",
	}
	got := RowSpans(rows, 54, nil, spans) // row 0 reaches the edge (52)
	require.Equal(t, [][2]int{{len("● Noted: "), len(rows[0]) - 5}}, got[0])
	require.Equal(t, [][2]int{{2, 2 + 30 + len("-tail")}}, got[1])
	require.Empty(t, got[2])
}

// TestTextWidth: the fast count agrees with ansi.StringWidth on every
// character it counts itself and on rows mixing them with others.
func TestTextWidth(t *testing.T) {
	for r := rune(0); r < 0x30000; r++ {
		if narrowRune(r) {
			require.Equal(t, 1, ansi.StringWidth(string(r)), "U+%04X", r)
		}
	}
	for _, s := range []string{
		"", "plain ascii", "❯\u00a0my key is", "● Noted", "  ⎿  Tip: x", "────┼────", "  ⏸ manual mode on · ? for shortcuts",
		"中文 wide", "e\u0301 combining", "⚠\ufe0f emoji", "👍 thumbs", "tab\there", "ctrl\x1b[1m", "◽ wide square",
	} {
		require.Equal(t, ansi.StringWidth(s), textWidth(s), "%q", s)
	}
	// Random rows of the pieces its fast paths read (printable runs of
	// every length, two- and three-byte characters) and of what they must
	// leave to the slow one: controls, DEL, invalid, overlong and
	// surrogate encodings, cut characters, wide and combining ones.
	pieces := []string{"a", "abcdefgh", "0123456789abcdefg", " ", "~", "\x7f", "\x1f", "\t", "─", "╭", "❯", "⎿", "é", "\u00a0", "\u00ad",
		"中", "👍", "e\u0301", "\ufe0f", "\xe2\x94", "\xe2", "\xc3", "\xe0\x82\xa0", "\xc1\xa0", "\xed\xa0\x80", "\xff", "\x80"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		require.Equal(t, ansi.StringWidth(s), textWidth(s), "%q", s)
	}
}

// TestScreenPieces: the pieces of a key the program wrapped are each row's
// part, short parts left out; a screen where no row goes on in the next
// gives none.
func TestScreenPieces(t *testing.T) {
	spans := func(s string) [][2]int { return Spans(s, "[REDACTED]", nil) }
	key := "sk-ant-api03-" + strings.Repeat("Ab3", 20)
	screen := "● Noted: " + key[:40] + "\n  " + key[40:] + " ok\n  x"
	require.Equal(t, []string{key[:40], key[40:]}, ScreenPieces(screen, 51, spans))
	require.Empty(t, ScreenPieces("● Noted: "+key+"\nnext", 100, spans), "whole on its row")
	// Broken at the edge (28 of 30): the key is found only with its last
	// three bytes on the next row, and that piece is too short to look for.
	short := "● " + key[:26] + "\n  " + key[26:29] + " is short"
	require.Equal(t, [][2]int{{2, 5}}, RowSpans(strings.Split(short, "\n"), 30, nil, spans)[1])
	require.Equal(t, []string{key[:26]}, ScreenPieces(short, 30, spans), "a 3-byte piece is left out")
}

// TestMergeSpans: spans come out sorted, overlapping or touching ones as one.
func TestMergeSpans(t *testing.T) {
	tests := []struct {
		name string
		in   [][2]int
		want [][2]int
	}{
		{"nil", nil, nil},
		{"one", [][2]int{{3, 5}}, [][2]int{{3, 5}}},
		{"unsorted disjoint", [][2]int{{10, 12}, {0, 2}, {5, 6}}, [][2]int{{0, 2}, {5, 6}, {10, 12}}},
		{"nested", [][2]int{{0, 10}, {2, 3}, {4, 9}}, [][2]int{{0, 10}}},
		{"chain of overlaps", [][2]int{{6, 9}, {0, 3}, {2, 5}, {4, 7}}, [][2]int{{0, 9}}},
		{"touching", [][2]int{{0, 2}, {2, 4}}, [][2]int{{0, 4}}},
		{"same start", [][2]int{{1, 2}, {1, 8}, {1, 4}}, [][2]int{{1, 8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, MergeSpans(tt.in))
		})
	}
}
