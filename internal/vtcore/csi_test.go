package vtcore_test

import "testing"

// grid is a 4x6 screen of letters to erase and edit.
const grid = "abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx"

func TestCursorMovement(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "CUP", rows: 5, cols: 10, input: []string{"\x1b[3;4HX"}, want: []string{"", "", "   X"}, row: 2, col: 4},
		{name: "CUP defaults home", rows: 5, cols: 10, input: []string{"ab\x1b[HX"}, want: []string{"Xb"}, row: 0, col: 1},
		{name: "CUP clamps", rows: 3, cols: 5, input: []string{"\x1b[99;99HX"}, want: []string{"", "", "    X"}, row: 2, col: 4},
		{name: "CUP zero is one", rows: 3, cols: 5, input: []string{"ab\x1b[0;0HX"}, want: []string{"Xb"}, row: 0, col: 1},
		{name: "HVP", rows: 5, cols: 10, input: []string{"\x1b[2;3fX"}, want: []string{"", "  X"}, row: 1, col: 3},
		{name: "CUU CUD CUF CUB", rows: 5, cols: 10, input: []string{"\x1b[3;3H\x1b[2A\x1b[3C\x1b[1B\x1b[2DX"}, want: []string{"", "   X"}, row: 1, col: 4},
		{name: "explicit zero moves nothing", rows: 5, cols: 10, input: []string{"\x1b[3;3H\x1b[0A\x1b[0CX"}, want: []string{"", "", "  X"}, row: 2, col: 3},
		{name: "CUU stops at top", rows: 5, cols: 10, input: []string{"\x1b[3;3H\x1b[99AX"}, want: []string{"  X"}, row: 0, col: 3},
		{name: "CNL CPL", rows: 5, cols: 10, input: []string{"abc\x1b[2EX\x1b[1FY"}, want: []string{"abc", "Y", "X"}, row: 1, col: 1},
		{name: "CHA", rows: 3, cols: 10, input: []string{"abc\x1b[6GX"}, want: []string{"abc  X"}, row: 0, col: 6},
		{name: "HPA HPR VPA VPR", rows: 5, cols: 10, input: []string{"\x1b[4`\x1b[2a\x1b[3d\x1b[1eX"}, want: []string{"", "", "", "     X"}, row: 3, col: 6},
		{name: "CUD stays in scroll region", rows: 6, cols: 10, input: []string{"\x1b[2;4r\x1b[3;1H\x1b[9BX"}, want: []string{"", "", "", "X"}, row: 3, col: 1},
		{name: "CUD outside region goes to bottom", rows: 6, cols: 10, input: []string{"\x1b[2;4r\x1b[5;1H\x1b[9BX"}, want: []string{"", "", "", "", "", "X"}, row: 5, col: 1},
	})
}

func TestErase(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "ED 0 below", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[J"}, want: []string{"abcdef", "gh"}, row: 1, col: 2},
		// As x/vt: ED 1 erases the cursor's whole row (xterm stops at the
		// cursor).
		{name: "ED 1 above", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[1J"}, want: []string{"", "", "mnopqr", "stuvwx"}, row: 1, col: 2},
		{name: "ED 2 all", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[2J"}, want: []string{}, row: 1, col: 2},
		// ED 3 erases the scrollback only (xterm, tmux; x/vt blanks the
		// screen).
		{name: "ED 3 keeps the screen", rows: 4, cols: 6, input: []string{grid, "\x1b[3J"}, want: []string{"abcdef", "ghijkl", "mnopqr", "stuvwx"}, row: 3, col: 5},
		{name: "EL 0", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[K"}, want: []string{"abcdef", "gh", "mnopqr", "stuvwx"}, row: 1, col: 2},
		{name: "EL 1", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[1K"}, want: []string{"abcdef", "   jkl", "mnopqr", "stuvwx"}, row: 1, col: 2},
		{name: "EL 2", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[2K"}, want: []string{"abcdef", "", "mnopqr", "stuvwx"}, row: 1, col: 2},
		{name: "EL 0 clears pending wrap", rows: 2, cols: 3, input: []string{"abc\x1b[Kd"}, want: []string{"abd"}, row: 0, col: 2},
		{name: "ECH", rows: 4, cols: 6, input: []string{grid, "\x1b[1;2H\x1b[3X"}, want: []string{"a   ef", "ghijkl", "mnopqr", "stuvwx"}, row: 0, col: 1},
		{name: "ECH past the edge", rows: 4, cols: 6, input: []string{grid, "\x1b[1;5H\x1b[99X"}, want: []string{"abcd", "ghijkl", "mnopqr", "stuvwx"}, row: 0, col: 4},
	})
}

func TestInsertDelete(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "ICH", rows: 4, cols: 6, input: []string{grid, "\x1b[1;2H\x1b[2@"}, want: []string{"a  bcd", "ghijkl", "mnopqr", "stuvwx"}, row: 0, col: 1},
		{name: "DCH", rows: 4, cols: 6, input: []string{grid, "\x1b[1;2H\x1b[2P"}, want: []string{"adef", "ghijkl", "mnopqr", "stuvwx"}, row: 0, col: 1},
		{name: "DCH past the edge", rows: 4, cols: 6, input: []string{grid, "\x1b[1;2H\x1b[99P"}, want: []string{"a", "ghijkl", "mnopqr", "stuvwx"}, row: 0, col: 1},
		{name: "IL", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[L"}, want: []string{"abcdef", "", "ghijkl", "mnopqr"}, row: 1, col: 0},
		{name: "DL", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[2M"}, want: []string{"abcdef", "stuvwx"}, row: 1, col: 0},
		{name: "IL in region", rows: 4, cols: 6, input: []string{grid, "\x1b[1;3r\x1b[1;1H\x1b[L"}, want: []string{"", "abcdef", "ghijkl", "stuvwx"}, row: 0, col: 0},
		// As x/vt: with a region starting below the top, IL and DL move the
		// cursor down by the region's top (xterm keeps the row).
		{name: "DL in region moves cursor as x/vt", rows: 4, cols: 6, input: []string{grid, "\x1b[2;4r\x1b[2;1H\x1b[M"}, want: []string{"abcdef", "mnopqr", "stuvwx"}, row: 2, col: 0},
		{name: "IL outside region does nothing", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3r\x1b[4;1H\x1b[L"}, want: []string{"abcdef", "ghijkl", "mnopqr", "stuvwx"}, row: 3, col: 0},
		{name: "SU", rows: 4, cols: 6, input: []string{grid, "\x1b[2S"}, want: []string{"mnopqr", "stuvwx"}, row: 3, col: 5},
		{name: "SD", rows: 4, cols: 6, input: []string{grid, "\x1b[T"}, want: []string{"", "abcdef", "ghijkl", "mnopqr"}, row: 3, col: 5},
		{name: "SU in region", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3r\x1b[S"}, want: []string{"abcdef", "mnopqr", "", "stuvwx"}, row: 0, col: 0},
		{name: "ICH splits a wide char as x/vt", rows: 2, cols: 6, input: []string{"a中b\x1b[1;2H\x1b[@"}, want: []string{"a  b"}, row: 0, col: 1},
	})
}

func TestScrollRegions(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "LF scrolls only the region", rows: 5, cols: 6, input: []string{"top\x1b[2;4r\x1b[4;1Ha\nb\nc\x1b[5;1Hbot"}, want: []string{"top", "a", " b", "  c", "bot"}, row: 4, col: 3},
		{name: "DECSTBM homes the cursor", rows: 5, cols: 6, input: []string{"\x1b[3;3H\x1b[2;4rX"}, want: []string{"X"}, row: 0, col: 1},
		{name: "DECSTBM ignores top >= bottom", rows: 5, cols: 6, input: []string{"\x1b[3;3H\x1b[4;2rX"}, want: []string{"", "", "  X"}, row: 2, col: 3},
		// Deliberate difference: a bottom past the last row is clamped.
		{name: "DECSTBM clamps bottom", rows: 3, cols: 6, input: []string{"\x1b[1;99r\x1b[3;1Ha\nb"}, want: []string{"", "a", " b"}, row: 2, col: 2},
		{name: "origin mode", rows: 5, cols: 6, input: []string{"\x1b[2;4r\x1b[?6h\x1b[1;1HX\x1b[9;1HY"}, want: []string{"", "X", "", "Y"}, row: 3, col: 1},
		{name: "left right margins", rows: 3, cols: 8, input: []string{"\x1b[?69h\x1b[3;5s\x1b[?6h\x1b[1;1HX\x1b[1;99HY"}, want: []string{"  X Y"}, row: 0, col: 5},
		{name: "CSI s saves without mode 69", rows: 3, cols: 8, input: []string{"ab\x1b[s\r\nc\x1b8X"}, want: []string{"abX", "c"}, row: 0, col: 3},
		{name: "scroll within left right margins", rows: 3, cols: 6, input: []string{"abcdef\r\nghijkl\r\nmnopqr\x1b[?69h\x1b[2;4s\x1b[3;2H\n"}, want: []string{"ahijef", "gnopkl", "m   qr"}, row: 2, col: 1},
	})
}
