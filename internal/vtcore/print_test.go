package vtcore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrint(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "plain text", rows: 3, cols: 10, input: []string{"hello"}, want: []string{"hello"}, row: 0, col: 5},
		{name: "autowrap with pending wrap", rows: 3, cols: 5, input: []string{"abcde"}, want: []string{"abcde"}, row: 0, col: 4},
		{name: "pending wrap resolves on next char", rows: 3, cols: 5, input: []string{"abcdef"}, want: []string{"abcde", "f"}, row: 1, col: 1},
		{name: "CR clears pending wrap", rows: 3, cols: 5, input: []string{"abcde\rX"}, want: []string{"Xbcde"}, row: 0, col: 1},
		{name: "no autowrap overwrites last column", rows: 3, cols: 5, input: []string{"\x1b[?7labcdefg"}, want: []string{"abcdg"}, row: 0, col: 4},
		{name: "wrap at bottom scrolls", rows: 2, cols: 3, input: []string{"abcdefgh"}, want: []string{"def", "gh"}, row: 1, col: 2},
		{name: "split across writes", rows: 2, cols: 10, input: []string{"ab", "cd", "\x1b", "[1", "mef"}, want: []string{"abcdef"}, row: 0, col: 6},
		{name: "UTF-8 split across writes", rows: 2, cols: 10, input: []string{"a\xc3", "\xa9b"}, want: []string{"aéb"}, row: 0, col: 3},
		{name: "DEL is ignored", rows: 2, cols: 10, input: []string{"a\x7fb"}, want: []string{"ab"}, row: 0, col: 2},
		{name: "REP repeats last char", rows: 2, cols: 10, input: []string{"x\x1b[3b"}, want: []string{"xxxx"}, row: 0, col: 4},
		{name: "REP without a char does nothing", rows: 2, cols: 10, input: []string{"\x1b[3b"}, want: []string{}, row: 0, col: 0},
		{name: "REP huge count fills and stops", rows: 2, cols: 4, input: []string{"x\x1b[2147483646b"}, want: []string{"xxxx", "xxx"}, row: 1, col: 3},
	})
}

func TestWideCharacters(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "wide takes two cells", rows: 2, cols: 10, input: []string{"中文x"}, want: []string{"中文x"}, row: 0, col: 5},
		{name: "emoji", rows: 2, cols: 10, input: []string{"🙂y"}, want: []string{"🙂y"}, row: 0, col: 3},
		{name: "overwrite left half blanks right half", rows: 2, cols: 10, input: []string{"中文\rX"}, want: []string{"X 文"}, row: 0, col: 1},
		{name: "overwrite right half blanks left half", rows: 2, cols: 10, input: []string{"中文\x1b[2GX"}, want: []string{" X文"}, row: 0, col: 2},
		{name: "erase a half blanks the whole", rows: 2, cols: 10, input: []string{"中文\x1b[2G\x1b[X"}, want: []string{"  文"}, row: 0, col: 1},
		// Deliberate difference from x/vt (which writes blanks and loses it):
		// a wide character that does not fit wraps first, as in xterm.
		{name: "wide at last column wraps", rows: 3, cols: 5, input: []string{"abcd中"}, want: []string{"abcd", "中"}, row: 1, col: 2},
		// Deliberate difference: ending on the last column leaves a pending
		// wrap, so the next character does not overwrite its right half.
		{name: "wide ending on last column sets pending wrap", rows: 3, cols: 5, input: []string{"abc中x"}, want: []string{"abc中", "x"}, row: 1, col: 1},
		{name: "wide without autowrap at last column", rows: 3, cols: 5, input: []string{"\x1b[?7labcd中"}, want: []string{"abcd"}, row: 0, col: 4},
	})
	term := feed(2, 10, "中x")
	require.Equal(t, 2, term.Cell(0, 0).Width())
	require.Equal(t, 0, term.Cell(0, 1).Width())
	require.Equal(t, "", cellText(term, 0, 1))
	require.Equal(t, "x", cellText(term, 0, 2))
}

func TestGraphemeClusters(t *testing.T) {
	cases := []struct {
		name, input string
		cells       []string
		widths      []int
		col         int
	}{
		{"combining mark joins its base", "e\u0301x", []string{"e\u0301", "x"}, []int{1, 1}, 2},
		{"several marks", "a\u0308\u0323b", []string{"a\u0308\u0323", "b"}, []int{1, 1}, 2},
		{"ZWJ emoji is one wide cell", "👩\u200d💻!", []string{"👩\u200d💻", "", "!"}, []int{2, 0, 1}, 3},
		// Without mode 2027, widths are per code point, as bash, vim and
		// tmux count them: a flag is two regional indicators of width 1,
		// VS16 adds nothing, a skin tone is a character of its own.
		{"flag", "🇫🇷.", []string{"🇫", "🇷", "."}, []int{1, 1, 1}, 3},
		{"variation selector 16 adds no width", "❤\ufe0f.", []string{"❤\ufe0f", "."}, []int{1, 1}, 2},
		{"skin tone modifier is its own wide cell", "👍🏽.", []string{"👍", "", "🏽", "", "."}, []int{2, 0, 2, 0, 1}, 5},
		// Mode 2027 (grapheme clustering) for programs that enable it.
		{"2027: flag is one wide cell", "\x1b[?2027h🇫🇷.", []string{"🇫🇷", "", "."}, []int{2, 0, 1}, 3},
		{"2027: variation selector 16 makes it wide", "\x1b[?2027h❤\ufe0f.", []string{"❤\ufe0f", "", "."}, []int{2, 0, 1}, 3},
		{"2027: skin tone joins its base", "\x1b[?2027h👍🏽.", []string{"👍🏽", "", "."}, []int{2, 0, 1}, 3},
		{"2027 reset: per code point again", "\x1b[?2027h\x1b[?2027l❤\ufe0f.", []string{"❤\ufe0f", "."}, []int{1, 1}, 2},
		{"lone mark is a zero-width cell", "\u0301x", []string{"x"}, []int{1}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			term := feed(2, 10, tc.input)
			for i, want := range tc.cells {
				require.Equal(t, want, cellText(term, 0, i), "cell %d", i)
				require.Equal(t, tc.widths[i], term.Cell(0, i).Width(), "cell %d width", i)
			}
			_, col := term.Cursor()
			require.Equal(t, tc.col, col)
		})
	}
	// A cluster split across writes is two clusters, as in x/vt.
	term := feed(2, 10, "e", "\u0301x")
	require.Equal(t, "e", cellText(term, 0, 0))
}

func TestManyDistinctClustersStayReadable(t *testing.T) {
	// More distinct clusters than the table keeps before sweeping: the ones
	// still on screen must survive the sweep.
	term := feed(3, 20)
	var last string
	for i := range 5000 {
		last = "a" + string(rune(0x300+i%100)) + string(rune(0x300+i/100))
		term.WriteString("\r" + last)
	}
	require.Equal(t, last, cellText(term, 0, 0))
	require.Equal(t, 1, term.Cell(0, 0).Width())
}

func TestCharsets(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "DEC special graphics", rows: 3, cols: 10, input: []string{"\x1b(0lqqk\x1b(B lqk"}, want: []string{"┌──┐ lqk"}, row: 0, col: 8},
		{name: "UK set", rows: 2, cols: 10, input: []string{"\x1b(A$5\x1b(B$"}, want: []string{"£5$"}, row: 0, col: 3},
		// SO/SI are a deliberate difference: x/vt ignores them.
		{name: "SO shifts G1 in, SI back", rows: 2, cols: 10, input: []string{"\x1b)0x\x0ex\x0fx"}, want: []string{"x│x"}, row: 0, col: 3},
		{name: "single shift via C1 SS2", rows: 2, cols: 10, input: []string{"\x1b*0\x8eqq"}, want: []string{"─q"}, row: 0, col: 2},
		{name: "locking shift LS2", rows: 2, cols: 10, input: []string{"\x1b*0\x1bnqq"}, want: []string{"──"}, row: 0, col: 2},
		{name: "REP repeats the mapped char", rows: 2, cols: 10, input: []string{"\x1b(0q\x1b[2b"}, want: []string{"───"}, row: 0, col: 3},
	})
}

func TestInsertMode(t *testing.T) {
	// IRM is a deliberate difference: x/vt ignores it; xterm inserts.
	runScreenCases(t, []screenCase{
		{name: "insert shifts right", rows: 2, cols: 10, input: []string{"abcdef\x1b[3G\x1b[4hXY\x1b[4lZ"}, want: []string{"abXYZdef"}, row: 0, col: 5},
		{name: "insert pushes off the edge", rows: 2, cols: 5, input: []string{"abcde\r\x1b[4hXY"}, want: []string{"XYabc"}, row: 0, col: 2},
	})
}

func TestLongLinesScroll(t *testing.T) {
	term := feed(24, 80)
	var want []string
	for i := range 1000 {
		line := strings.Repeat(string(rune('a'+i%26)), 1+i%79)
		term.WriteString(line + "\r\n")
		want = append(want, line)
	}
	require.Equal(t, want[len(want)-23:], lines(term))
}
