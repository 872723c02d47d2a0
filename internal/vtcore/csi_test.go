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
		// ED 1 erases up to the cursor's cell (xterm, tmux; x/vt erases
		// its whole row).
		{name: "ED 1 above", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3H\x1b[1J"}, want: []string{"", "   jkl", "mnopqr", "stuvwx"}, row: 1, col: 2, departs: true},
		{name: "ED 1 at the last column", rows: 4, cols: 6, input: []string{grid, "\x1b[2;6H\x1b[1J"}, want: []string{"", "", "mnopqr", "stuvwx"}, row: 1, col: 5},
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
		// IL and DL leave the cursor at the left margin of its row (xterm;
		// x/vt moves it down by the region's top).
		{name: "DL in region keeps the cursor's row", rows: 4, cols: 6, input: []string{grid, "\x1b[2;4r\x1b[2;3H\x1b[M"}, want: []string{"abcdef", "mnopqr", "stuvwx"}, row: 1, col: 0, departs: true},
		{name: "IL in region keeps the cursor's row", rows: 4, cols: 6, input: []string{grid, "\x1b[2;4r\x1b[2;3H\x1b[L"}, want: []string{"abcdef", "", "ghijkl", "mnopqr"}, row: 1, col: 0, departs: true},
		{name: "IL outside region does nothing", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3r\x1b[4;1H\x1b[L"}, want: []string{"abcdef", "ghijkl", "mnopqr", "stuvwx"}, row: 3, col: 0},
		{name: "SU", rows: 4, cols: 6, input: []string{grid, "\x1b[2S"}, want: []string{"mnopqr", "stuvwx"}, row: 3, col: 5},
		{name: "SD", rows: 4, cols: 6, input: []string{grid, "\x1b[T"}, want: []string{"", "abcdef", "ghijkl", "mnopqr"}, row: 3, col: 5},
		{name: "SU in region", rows: 4, cols: 6, input: []string{grid, "\x1b[2;3r\x1b[S"}, want: []string{"abcdef", "mnopqr", "", "stuvwx"}, row: 0, col: 0},
		// A wide character moves whole (xterm, tmux; x/vt blanks it).
		{name: "ICH before a wide char moves it", rows: 2, cols: 8, input: []string{"a中b\x1b[1;2H\x1b[@"}, want: []string{"a 中b"}, row: 0, col: 1, departs: true},
		// Only a wide character the edit cuts in two is blanked (xterm).
		{name: "ICH inside a wide char blanks it", rows: 2, cols: 8, input: []string{"a中b\x1b[1;3H\x1b[@"}, want: []string{"a   b"}, row: 0, col: 2},
		{name: "ICH pushes a wide char's tail past the edge", rows: 2, cols: 5, input: []string{"abc中\x1b[1;1H\x1b[@"}, want: []string{" abc"}, row: 0, col: 0},
		{name: "DCH moves wide chars whole", rows: 2, cols: 10, input: []string{"ab中文cd\x1b[1;2H\x1b[P"}, want: []string{"a中文cd"}, row: 0, col: 1, departs: true},
		{name: "DCH of a lead blanks its tail", rows: 2, cols: 10, input: []string{"ab中文cd\x1b[1;3H\x1b[P"}, want: []string{"ab 文cd"}, row: 0, col: 2, departs: true},
		{name: "DCH of a tail blanks its lead", rows: 2, cols: 10, input: []string{"ab中文cd\x1b[1;4H\x1b[P"}, want: []string{"ab 文cd"}, row: 0, col: 3, departs: true},
		{name: "DCH cutting two wide chars", rows: 2, cols: 10, input: []string{"ab中文cd\x1b[1;4H\x1b[2P"}, want: []string{"ab  cd"}, row: 0, col: 3},
		{name: "DCH in a region moves wide chars whole", rows: 2, cols: 10, input: []string{"ab中文cdef\x1b[?69h\x1b[1;8s\x1b[1;1H\x1b[P"}, want: []string{"b中文cd ef"}, row: 0, col: 0, departs: true},
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
		// CSI u is SCORC (xterm, tmux; x/vt ignores it).
		{name: "CSI u restores", rows: 3, cols: 8, input: []string{"ab\x1b[s\x1b[3;5Hcd\x1b[uX"}, want: []string{"abX", "", "    cd"}, row: 0, col: 3, departs: true},
		{name: "CSI > u is not SCORC", rows: 3, cols: 8, input: []string{"ab\x1b[s\x1b[3;5Hcd\x1b[>1uX"}, want: []string{"ab", "", "    cdX"}, row: 2, col: 7},
		{name: "scroll within left right margins", rows: 3, cols: 6, input: []string{"abcdef\r\nghijkl\r\nmnopqr\x1b[?69h\x1b[2;4s\x1b[3;2H\n"}, want: []string{"ahijef", "gnopkl", "m   qr"}, row: 2, col: 1},
	})
}
