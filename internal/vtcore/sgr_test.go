package vtcore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

func TestSGR(t *testing.T) {
	idx := vtcore.IndexedColor
	rgb := vtcore.RGBColor
	cases := []struct {
		name, sgr string
		want      vtcore.Style
	}{
		{"reset", "\x1b[1;31m\x1b[m", vtcore.Style{}},
		{"reset with 0", "\x1b[1;31;0m", vtcore.Style{}},
		{"attributes", "\x1b[1;2;3;5;6;7;8;9m", vtcore.Style{Attrs: vtcore.AttrBold | vtcore.AttrFaint | vtcore.AttrItalic | vtcore.AttrBlink | vtcore.AttrRapidBlink | vtcore.AttrReverse | vtcore.AttrConceal | vtcore.AttrStrikethrough}},
		{"attributes off", "\x1b[1;2;3;5;6;7;8;9;4m\x1b[22;23;25;27;28;29;24m", vtcore.Style{}},
		{"underline", "\x1b[4m", vtcore.Style{Underline: vtcore.UnderlineSingle}},
		{"curly underline", "\x1b[4:3m", vtcore.Style{Underline: vtcore.UnderlineCurly}},
		// SGR 21 is double underline (ECMA-48, xterm, tmux); x/vt ignores it.
		{"21 double underline", "\x1b[21m", vtcore.Style{Underline: vtcore.UnderlineDouble}},
		{"21 off by 24", "\x1b[21m\x1b[24m", vtcore.Style{}},
		{"underline off by sub-parameter", "\x1b[4m\x1b[4:0m", vtcore.Style{}},
		{"4;3 is underline then italic", "\x1b[4;3m", vtcore.Style{Underline: vtcore.UnderlineSingle, Attrs: vtcore.AttrItalic}},
		{"basic colours", "\x1b[31;42m", vtcore.Style{Fg: idx(1), Bg: idx(2)}},
		{"bright colours", "\x1b[95;107m", vtcore.Style{Fg: idx(13), Bg: idx(15)}},
		{"default colours", "\x1b[31;42m\x1b[39;49m", vtcore.Style{}},
		{"256 colours", "\x1b[38;5;208;48;5;17m", vtcore.Style{Fg: idx(208), Bg: idx(17)}},
		{"256 colours with colons", "\x1b[38:5:208m", vtcore.Style{Fg: idx(208)}},
		{"truecolor", "\x1b[38;2;10;20;30;48;2;1;2;3m", vtcore.Style{Fg: rgb(10, 20, 30), Bg: rgb(1, 2, 3)}},
		{"truecolor with colons and colour space", "\x1b[38:2::10:20:30m", vtcore.Style{Fg: rgb(10, 20, 30)}},
		{"truecolor with colons", "\x1b[48:2:10:20:30m", vtcore.Style{Bg: rgb(10, 20, 30)}},
		{"underline colour", "\x1b[58;5;9m", vtcore.Style{UnderlineColor: idx(9)}},
		{"underline colour off", "\x1b[58;5;9;59m", vtcore.Style{}},
		// As x/vt: the leftover parameters are read as attributes (2, 1, 2).
		{"incomplete truecolor", "\x1b[38;2;1;2m", vtcore.Style{Attrs: vtcore.AttrBold | vtcore.AttrFaint}},
		{"transparent is default", "\x1b[31m\x1b[38;1m", vtcore.Style{}},
		{"CMYK", "\x1b[38:4::0:255:255:0m", vtcore.Style{Fg: rgb(255, 0, 0)}},
		{"missing parameter resets", "\x1b[1;;3m", vtcore.Style{Attrs: vtcore.AttrItalic}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			term := feed(2, 10, tc.sgr+"x")
			require.Equal(t, tc.want, term.Cell(0, 0).Style)
		})
	}
}

func TestErasureKeepsPenBackground(t *testing.T) {
	term := feed(2, 10, "abcdef\x1b[41;1m\r\x1b[K")
	require.Equal(t, vtcore.Style{Bg: vtcore.IndexedColor(1)}, term.Cell(0, 3).Style)
	// ED 2 fills with it too (xterm, tmux; x/vt blanks to the default).
	term.WriteString("\x1b[2J")
	require.Equal(t, vtcore.Style{Bg: vtcore.IndexedColor(1)}, term.Cell(1, 9).Style)
	require.Positive(t, term.Divergences())
	term = feed(2, 10, "abcdef\x1b[41m\x1b[49m\x1b[2J")
	require.Equal(t, vtcore.Style{}, term.Cell(0, 3).Style)
	require.Zero(t, term.Divergences(), "ED 2 on the default background is x/vt's")
}

func TestColorString(t *testing.T) {
	require.Equal(t, "default", vtcore.DefaultColor.String())
	require.Equal(t, "idx:208", vtcore.IndexedColor(208).String())
	require.Equal(t, "rgb:1:2:3", vtcore.RGBColor(1, 2, 3).String())
}
