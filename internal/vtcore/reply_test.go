package vtcore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

func TestReplies(t *testing.T) {
	cases := []struct {
		name, input string
		want        []string
	}{
		{"DA1", "\x1b[c", []string{"\x1b[?62;1;6;22c"}},
		{"DA1 with 0", "\x1b[0c", []string{"\x1b[?62;1;6;22c"}},
		{"DA1 with other parameter", "\x1b[1c", nil},
		{"DA2", "\x1b[>c", []string{"\x1b[>1;10;0c"}},
		// Deliberate difference: x/vt answers ESC[?0n.
		{"DSR 5 operating status", "\x1b[5n", []string{"\x1b[0n"}},
		{"DSR 6 cursor position", "ab\r\ncd\x1b[6n", []string{"\x1b[2;3R"}},
		{"DSR 6 at pending wrap", "\x1b[1;10Hx\x1b[6n", []string{"\x1b[1;10R"}},
		{"DECXCPR", "ab\x1b[?6n", []string{"\x1b[?1;3R"}},
		// Deliberate difference: x/vt reports the absolute position.
		{"CPR is origin relative under DECOM", "\x1b[3;5r\x1b[?6h\x1b[2;4H\x1b[6n", []string{"\x1b[2;4R"}},
		{"CPR without DECOM is absolute", "\x1b[3;5r\x1b[4;4H\x1b[6n", []string{"\x1b[4;4R"}},
		{"DSR without parameter", "\x1b[n", nil},
		{"DECRQM set DEC mode", "\x1b[?2004h\x1b[?2004$p", []string{"\x1b[?2004;1$y"}},
		{"DECRQM reset DEC mode", "\x1b[?1$p", []string{"\x1b[?1;2$y"}},
		{"DECRQM default set mode", "\x1b[?7$p", []string{"\x1b[?7;1$y"}},
		{"DECRQM unknown mode", "\x1b[?12345$p", []string{"\x1b[?12345;0$y"}},
		{"DECRQM unknown mode once set", "\x1b[?2026h\x1b[?2026$p", []string{"\x1b[?2026;1$y"}},
		{"DECRQM ANSI mode", "\x1b[20$p", []string{"\x1b[20;2$y"}},
		{"DECRQM ANSI insert mode", "\x1b[4h\x1b[4$p", []string{"\x1b[4;1$y"}},
		{"OSC 10 query", "\x1b]10;?\a", []string{"\x1b]10;rgb:ffff/ffff/ffff\a"}},
		{"OSC 11 query", "\x1b]11;?\x1b\\", []string{"\x1b]11;rgb:0000/0000/0000\a"}},
		{"OSC 12 query", "\x1b]12;?\a", []string{"\x1b]12;rgb:ffff/ffff/ffff\a"}},
		{"OSC 11 set then query", "\x1b]11;rgb:12/34/56\a\x1b]11;?\a", []string{"\x1b]11;rgb:1212/3434/5656\a"}},
		{"OSC 111 resets", "\x1b]11;#102030\a\x1b]111\a\x1b]11;?\a", []string{"\x1b]11;rgb:0000/0000/0000\a"}},
		{"in-band resize report", "\x1b[?2048h", []string{"\x1b[48;6;10;0;0t"}},
		{"several in order", "\x1b[c\x1b[5n", []string{"\x1b[?62;1;6;22c", "\x1b[0n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			term, got := replies(6, 10)
			term.WriteString(tc.input)
			require.Equal(t, tc.want, *got)
		})
	}
}

func TestRepliesAreFreshSlices(t *testing.T) {
	var got [][]byte
	term, _ := replies(3, 10)
	term.SetReplyHandler(func(b []byte) { got = append(got, b) })
	term.WriteString("\x1b[6n\x1b[2;2H\x1b[6n\x1b[?1$p\x1b[?2$p")
	require.Equal(t, []string{"\x1b[1;1R", "\x1b[2;2R", "\x1b[?1;2$y", "\x1b[?2;0$y"},
		[]string{string(got[0]), string(got[1]), string(got[2]), string(got[3])})
}

func TestNilReplyHandlerDropsReplies(t *testing.T) {
	term, got := replies(3, 10)
	term.SetReplyHandler(nil)
	term.WriteString("\x1b[c\x1b[6n")
	require.Empty(t, *got)
}

func TestResize(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "shrink cuts right and bottom", rows: 3, cols: 6, input: []string{"abcdef\r\nghijkl\r\nmnopqr"}, want: []string{"abcdef", "ghijkl", "mnopqr"}, row: 2, col: 5},
	})
	// Shrinking keeps the cursor's row: rows leave at the top (xterm,
	// tmux), and columns are cut at the right without reflow.
	term := feed(3, 6, "abcdef\r\nghijkl\r\nmn")
	term.Resize(2, 4)
	require.Equal(t, []string{"ghij", "mn"}, lines(term))
	row, col := term.Cursor()
	require.Equal(t, [2]int{1, 2}, [2]int{row, col})
	// Without scrollback the row is gone: growing adds a blank row.
	term.Resize(3, 8)
	require.Equal(t, []string{"ghij", "mn"}, lines(term))
	row, _ = term.Cursor()
	require.Equal(t, 1, row)

	// With scrollback, growing takes the rows back (cut as they were).
	term = vtcore.New(3, 6, nil)
	term.SetScrollback(100)
	term.WriteString("abcdef\r\nghijkl\r\nmn")
	term.Resize(2, 4)
	require.Equal(t, 1, term.ScrollbackLen())
	require.Equal(t, "abcd", string(term.AppendScrollbackText(nil, 0)))
	term.Resize(3, 8)
	require.Equal(t, []string{"abcd", "ghij", "mn"}, lines(term))
	require.Equal(t, 0, term.ScrollbackLen())
	row, col = term.Cursor()
	require.Equal(t, [2]int{2, 2}, [2]int{row, col})

	// Rows below the cursor go first, blank or not (tmux).
	term = feed(4, 4, "ab\r\ncd\r\nef\r\ngh\x1b[2;1H")
	term.Resize(2, 4)
	require.Equal(t, []string{"ab", "cd"}, lines(term))

	// A pending wrap moves on when the grid widens.
	term = feed(2, 4, "abcd")
	term.Resize(2, 6)
	_, col = term.Cursor()
	require.Equal(t, 4, col)
	term.WriteString("X")
	require.Equal(t, []string{"abcdX"}, lines(term))

	// Scroll regions reset; the cursor stays in the grid, even one saved
	// before the grid shrank (a deliberate difference from x/vt).
	term = feed(10, 10, "\x1b[2;5r\x1b[9;9H\x1b7")
	term.Resize(4, 4)
	term.WriteString("\x1b8")
	row, col = term.Cursor()
	require.Equal(t, [2]int{3, 3}, [2]int{row, col})
	term.WriteString("\x1b[4;1H\nX")
	require.Equal(t, []string{"", "", "", "X"}, lines(term))

	// The main screen's cursor is clamped when the alternate screen is left.
	term = feed(10, 10, "\x1b[9;9H\x1b[?1049h")
	term.Resize(4, 4)
	term.WriteString("\x1b[?1049l")
	row, col = term.Cursor()
	require.Equal(t, [2]int{3, 3}, [2]int{row, col})
}
