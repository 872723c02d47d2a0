package vtcore_test

import "testing"

func TestControls(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "BS moves left", rows: 2, cols: 10, input: []string{"abc\b\bX"}, want: []string{"aXc"}, row: 0, col: 2},
		{name: "BS stops at column 0", rows: 2, cols: 10, input: []string{"a\b\b\bX"}, want: []string{"X"}, row: 0, col: 1},
		{name: "BS from pending wrap", rows: 2, cols: 5, input: []string{"abcde\bX"}, want: []string{"abcXe"}, row: 0, col: 4},
		{name: "HT to tab stops", rows: 2, cols: 20, input: []string{"a\tb\tc"}, want: []string{"a       b       c"}, row: 0, col: 17},
		{name: "HT stops at last column", rows: 2, cols: 10, input: []string{"\t\t\tX"}, want: []string{"         X"}, row: 0, col: 9},
		{name: "LF keeps column", rows: 3, cols: 10, input: []string{"ab\ncd"}, want: []string{"ab", "  cd"}, row: 1, col: 4},
		{name: "VT and FF are LF", rows: 3, cols: 10, input: []string{"a\vb\fc"}, want: []string{"a", " b", "  c"}, row: 2, col: 3},
		{name: "LNM makes LF a newline", rows: 3, cols: 10, input: []string{"\x1b[20hab\ncd"}, want: []string{"ab", "cd"}, row: 1, col: 2},
		{name: "CR LF", rows: 3, cols: 10, input: []string{"ab\r\ncd"}, want: []string{"ab", "cd"}, row: 1, col: 2},
		{name: "LF at bottom scrolls", rows: 2, cols: 10, input: []string{"a\r\nb\r\nc"}, want: []string{"b", "c"}, row: 1, col: 1},
		{name: "BEL and NUL print nothing", rows: 2, cols: 10, input: []string{"a\a\x00b"}, want: []string{"ab"}, row: 0, col: 2},
		{name: "IND", rows: 2, cols: 10, input: []string{"a\x1bDb\x1bDc"}, want: []string{" b", "  c"}, row: 1, col: 3},
		{name: "C1 IND", rows: 3, cols: 10, input: []string{"a\x84b"}, want: []string{"a", " b"}, row: 1, col: 2},
		// NEL is a deliberate difference: x/vt does not implement it.
		{name: "NEL", rows: 3, cols: 10, input: []string{"ab\x1bEc\x85d"}, want: []string{"ab", "c", "d"}, row: 2, col: 1},
		{name: "RI moves up", rows: 3, cols: 10, input: []string{"\n\nab\x1bMc"}, want: []string{"", "  c", "ab"}, row: 1, col: 3},
		{name: "RI at top scrolls down", rows: 3, cols: 10, input: []string{"ab\r\ncd\x1b[H\x1bMx"}, want: []string{"x", "ab", "cd"}, row: 0, col: 1},
		{name: "C1 RI", rows: 3, cols: 10, input: []string{"ab\r\ncd\x1b[H\x8d"}, want: []string{"", "ab", "cd"}, row: 0, col: 0},
		{name: "DECSC and DECRC", rows: 3, cols: 10, input: []string{"ab\x1b7\r\ncd\x1b8X"}, want: []string{"abX", "cd"}, row: 0, col: 3},
		{name: "DECRC restores the pen", rows: 2, cols: 10, input: []string{"\x1b[1m\x1b7\x1b[m\x1b8"}, want: []string{}, row: 0, col: 0},
		{name: "HTS and TBC", rows: 2, cols: 20, input: []string{"\x1b[3g\x1b[5G\x1bH\r\tX\x1b[5G\x1b[g\r\tY"}, want: []string{"    X              Y"}, row: 0, col: 19},
		{name: "C1 HTS", rows: 2, cols: 20, input: []string{"\x1b[3g\x1b[4G\x88\r\tX"}, want: []string{"   X"}, row: 0, col: 4},
		{name: "DECST8C resets stops", rows: 2, cols: 20, input: []string{"\x1b[3g\x1b[?5W\tX"}, want: []string{"        X"}, row: 0, col: 9},
		{name: "CHT and CBT", rows: 2, cols: 40, input: []string{"\x1b[3IX\x1b[2ZY"}, want: []string{"                Y       X"}, row: 0, col: 17},
		{name: "RIS", rows: 3, cols: 10, input: []string{"\x1b[1mab\x1b[2;3r\x1b[?6h\x1bcX"}, want: []string{"X"}, row: 0, col: 1},
	})
}
