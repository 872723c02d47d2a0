package vtcore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

// modes is what a snapshot reports besides the grid.
type modes struct {
	title                                  string
	visible, alt, appCursor, keypad, paste bool
}

func modesOf(term *vtcore.Terminal) modes {
	return modes{term.Title(), term.CursorVisible(), term.AltScreen(), term.ApplicationCursor(), term.ApplicationKeypad(), term.BracketedPaste()}
}

func TestModes(t *testing.T) {
	cases := []struct {
		name  string
		input string
		want  modes
	}{
		{"defaults", "", modes{visible: true}},
		{"cursor keys", "\x1b[?1h", modes{visible: true, appCursor: true}},
		{"cursor keys off", "\x1b[?1h\x1b[?1l", modes{visible: true}},
		{"keypad by ESC =", "\x1b=", modes{visible: true, keypad: true}},
		{"keypad off by ESC >", "\x1b=\x1b>", modes{visible: true}},
		{"keypad by mode 66", "\x1b[?66h", modes{visible: true, keypad: true}},
		{"bracketed paste", "\x1b[?2004h", modes{visible: true, paste: true}},
		{"hidden cursor", "\x1b[?25l", modes{}},
		// The title stack: CSI 22 t pushes, CSI 23 t pops (x/vt ignores both).
		{"title stack pop", "\x1b]2;shell\a\x1b[22;0t\x1b]2;mc\a\x1b[23;0t", modes{title: "shell", visible: true}},
		{"title stack nested", "\x1b]2;a\a\x1b[22t\x1b]2;b\a\x1b[22;2t\x1b]2;c\a\x1b[23t\x1b[23;2t", modes{title: "a", visible: true}},
		{"title stack pop on empty stack", "\x1b]2;a\a\x1b[23t", modes{title: "a", visible: true}},
		{"icon title push leaves the stack", "\x1b]2;a\a\x1b[22;1t\x1b]2;b\a\x1b[23t", modes{title: "b", visible: true}},
		{"several in one sequence", "\x1b[?1;2004;25h\x1b[?25l", modes{appCursor: true, paste: true}},
		{"alternate screen 1049", "\x1b[?1049h", modes{visible: true, alt: true}},
		{"alternate screen 1047", "\x1b[?1047h", modes{visible: true, alt: true}},
		{"alternate screen left", "\x1b[?1049h\x1b[?1049l", modes{visible: true}},
		// As x/vt: each screen has its cursor's visibility, reported again on
		// switching.
		// One cursor, as in xterm and tmux: its visibility is the
		// terminal's, whatever the screen (x/vt keeps one per screen).
		{"visibility is the terminal's", "\x1b[?1049h\x1b[?25l\x1b[?1049l", modes{visible: false}},
		{"47 is an alternate screen", "\x1b[?47h", modes{visible: true, alt: true}},
		{"title OSC 0", "\x1b]0;hello\a", modes{title: "hello", visible: true}},
		{"title OSC 2 with ST", "\x1b]2;hello\x1b\\", modes{title: "hello", visible: true}},
		{"icon name OSC 1 is not the title", "\x1b]1;icon\a", modes{visible: true}},
		// Deliberate difference: x/vt drops a title holding ';'.
		{"title with semicolon", "\x1b]2;a;b\a", modes{title: "a;b", visible: true}},
		{"title without text is ignored", "\x1b]2\a", modes{visible: true}},
		{"title survives RIS", "\x1b]2;t\a\x1b[?1049h\x1b[?1h\x1bc", modes{title: "t", visible: true}},
		{"mouse and focus modes are tracked only", "\x1b[?1000;1002;1006;1004;2026h", modes{visible: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, modesOf(feed(3, 10, tc.input)))
		})
	}
}

func TestAlternateScreen(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "1049 keeps the main screen", rows: 3, cols: 10, input: []string{"main\x1b[?1049halt\x1b[?1049l"}, want: []string{"main"}, row: 0, col: 4},
		// The alternate screen starts blank, the cursor where it was
		// (xterm, tmux; x/vt homes it).
		{name: "alternate starts blank, cursor kept", rows: 3, cols: 10, input: []string{"main\r\nline\x1b[?1049h"}, want: []string{}, row: 1, col: 4},
		{name: "1047 keeps the cursor", rows: 3, cols: 10, input: []string{"main\r\nline\x1b[?1047h"}, want: []string{}, row: 1, col: 4},
		{name: "47 keeps the cursor", rows: 3, cols: 10, input: []string{"main\r\nline\x1b[?47h"}, want: []string{}, row: 1, col: 4},
		// 1047l does not restore the cursor: it stays where the program
		// left it on the alternate screen.
		{name: "1047l leaves the cursor", rows: 3, cols: 10, input: []string{"main\x1b[?1047h\x1b[3;3Halt\x1b[?1047l"}, want: []string{"main"}, row: 2, col: 5},
		{name: "47l leaves the cursor", rows: 3, cols: 10, input: []string{"main\x1b[?47h\x1b[3;3Halt\x1b[?47l"}, want: []string{"main"}, row: 2, col: 5},
		// 1049l restores the cursor saved on entering, and on the main
		// screen still restores a saved one.
		{name: "1049l restores", rows: 3, cols: 10, input: []string{"main\x1b[?1049h\x1b[3;3Halt\x1b[?1049l"}, want: []string{"main"}, row: 0, col: 4},
		{name: "1049l on the main screen restores", rows: 3, cols: 10, input: []string{"ab\x1b7\r\ncd\x1b[?1049lX"}, want: []string{"abX", "cd"}, row: 0, col: 3},
		{name: "1049l without a saved cursor stays", rows: 3, cols: 10, input: []string{"ab\r\ncd\x1b[?1049lX"}, want: []string{"ab", "cdX"}, row: 1, col: 3},
		{name: "alternate is cleared on entry", rows: 3, cols: 10, input: []string{"\x1b[?1049halt\x1b[?1049l\x1b[?1049h"}, want: []string{}, row: 0, col: 0},
		{name: "1048 saves and restores", rows: 3, cols: 10, input: []string{"ab\x1b[?1048h\r\ncd\x1b[?1048lX"}, want: []string{"abX", "cd"}, row: 0, col: 3},
		{name: "each screen has its cursor", rows: 3, cols: 10, input: []string{"\x1b[2;5H\x1b[?1049h\x1b[3;3H\x1b[?1049lX"}, want: []string{"", "    X"}, row: 1, col: 5},
	})
}

func TestAutowrapAndOriginModes(t *testing.T) {
	runScreenCases(t, []screenCase{
		{name: "DECAWM off and on", rows: 3, cols: 4, input: []string{"\x1b[?7labcdef\x1b[?7h\rwxyz1"}, want: []string{"wxyz", "1"}, row: 1, col: 1},
		// Setting DECOM homes the cursor to the region's origin (xterm,
		// tmux; x/vt leaves it), and so does resetting it, to the screen's.
		{name: "DECOM", rows: 5, cols: 6, input: []string{"\x1b[3;4r\x1b[5;5H\x1b[?6hX\x1b[2;1HY"}, want: []string{"", "", "X", "Y"}, row: 3, col: 1, departs: true},
		{name: "DECOM reset homes", rows: 5, cols: 6, input: []string{"\x1b[3;4r\x1b[?6h\x1b[2;2H\x1b[?6lX"}, want: []string{"X"}, row: 0, col: 1, departs: true},
	})
}
