package ptywrighttest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

func snapshotOf(t *testing.T, size ptywright.Size, output string) ptywright.ScreenSnapshot {
	t.Helper()
	s, err := ptywright.NewScreen(size)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Write([]byte(output))
	require.NoError(t, err)
	return s.Snapshot(true)
}

func TestRenderGoldenMasks(t *testing.T) {
	size := ptywright.Size{Rows: 4, Cols: 12}
	const out = "at 12:34:56\r\n中文 x 中文\r\n\x1b[31mred\x1b[0m tail\r\nlast row"
	for _, tc := range []struct {
		name  string
		opts  []ScreenOption
		want  string
		style string // the styles layer's first rows, when checked
	}{
		{"no masks", nil, "at 12:34:56\n中文 x 中文\nred tail\nlast row\n", ""},
		{"regex keeps the width", []ScreenOption{MaskRegex(`\d+`, '#')}, "at ##:##:##\n中文 x 中文\nred tail\nlast row\n", ""},
		{"regex over wide characters gives two per character", []ScreenOption{MaskRegex(`中文`, '?')}, "at 12:34:56\n???? x ????\nred tail\nlast row\n", ""},
		{"rect", []ScreenOption{MaskRect(0, 3, 1, 5)}, "at ░░░░░:56\n中文 x 中文\nred tail\nlast row\n", ""},
		{"rect cutting a wide character hides it whole", []ScreenOption{MaskRect(1, 1, 1, 1)}, "at 12:34:56\n░░文 x 中文\nred tail\nlast row\n", ""},
		{"rect on a continuation hides the pair", []ScreenOption{MaskRect(1, 3, 1, 1)}, "at 12:34:56\n中░░ x 中文\nred tail\nlast row\n", ""},
		{"rect past the edges is clipped", []ScreenOption{MaskRect(3, 9, 5, 5)}, "at 12:34:56\n中文 x 中文\nred tail\nlast row ░░░\n", ""},
		{"ignore rows after", []ScreenOption{IgnoreRowsAfter(2)}, "at 12:34:56\n中文 x 中文\n", ""},
		{"ignore rows after more than there are", []ScreenOption{IgnoreRowsAfter(10)}, "at 12:34:56\n中文 x 中文\nred tail\nlast row\n", ""},
		{"masked cells lose their style", []ScreenOption{MaskRegex(`re`, '-')}, "at 12:34:56\n中文 x 中文\n--d tail\nlast row\n",
			"cursor: row 3, col 8\n\n\n..a\n\n\na: fg=idx:1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := goldenConfig{rows: -1}
			for _, o := range tc.opts {
				o(&cfg)
			}
			g, err := renderGolden(snapshotOf(t, size, out), cfg)
			require.NoError(t, err)
			require.Equal(t, tc.want, g.text)
			if tc.style != "" {
				require.Equal(t, tc.style, g.styles)
			}
		})
	}
}

func TestRenderGoldenRejectsBadMasks(t *testing.T) {
	snap := snapshotOf(t, ptywright.Size{Rows: 2, Cols: 10}, "x")
	for _, tc := range []struct {
		name string
		opt  ScreenOption
		want string
	}{
		{"bad regex", MaskRegex(`(`, '#'), `MaskRegex("("): error parsing regexp`},
		{"wide replacement", MaskRegex(`x`, '中'), "narrow, printable"},
		{"control replacement", MaskRegex(`x`, '\t'), "narrow, printable"},
		{"empty rect", MaskRect(0, 0, 0, 3), "MaskRect(0, 0, 0, 3): row and col must be >= 0, height and width > 0"},
		{"negative rect", MaskRect(-1, 0, 1, 1), "height and width > 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := goldenConfig{rows: -1}
			tc.opt(&cfg)
			_, err := renderGolden(snap, cfg)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := renderGolden(ptywright.ScreenSnapshot{Size: ptywright.Size{Rows: 1, Cols: 1}}, goldenConfig{rows: -1})
	require.ErrorContains(t, err, "no cells")
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"screen", "vim/insert", "a.b"} {
		require.NoError(t, validName(ok), ok)
	}
	for _, bad := range []string{"", "/abs", "../up", "a/../b", "a//b", "x.screen", "x.styles", "./x"} {
		require.Error(t, validName(bad), bad)
	}
}

func TestStylesLayerNamesEachStyleOnce(t *testing.T) {
	snap := snapshotOf(t, ptywright.Size{Rows: 3, Cols: 10},
		"\x1b[1;3;4;2;7;38;2;1;2;3;48;5;200mA\x1b[0m \x1b[32mg\x1b[0m\r\n\x1b[32mgg\x1b[0m 中\x1b[?25l")
	g, err := renderGolden(snap, goldenConfig{rows: -1})
	require.NoError(t, err)
	require.Equal(t, "cursor: row 1, col 5, hidden\na.b\nbb\n\n\na: fg=rgb:1:2:3 bg=idx:200 bold dim italic underline inverse\nb: fg=idx:2\n", g.styles)
}
