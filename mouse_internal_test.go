package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMouseInputAsXtermReportsIt compares the bytes with xterm's
// documented reports (ctlseqs, "Mouse Tracking"): Cb is the button (0
// left, 1 middle, 2 right, 3 release in the X10 form), +4 Shift, +8 Meta,
// +16 Control, +32 motion, 64/65 the wheel; the X10 form adds 32 to Cb and
// to the 1-based column and row, SGR writes them in decimal and ends a
// release with m. The strings are written out, not computed.
func TestMouseInputAsXtermReportsIt(t *testing.T) {
	size := Size{Rows: 24, Cols: 80}
	cases := []struct {
		name     string
		m        Mouse
		tracking int
		sgr      bool
		want     string
	}{
		{"sgr click", Mouse{Kind: MouseClick, Row: 2, Col: 4}, 1000, true, "\x1b[<0;5;3M\x1b[<0;5;3m"},
		{"sgr right press", Mouse{Kind: MousePress, Button: MouseRight, Row: 0, Col: 0}, 1000, true, "\x1b[<2;1;1M"},
		{"sgr ctrl shift middle release", Mouse{Kind: MouseRelease, Button: MouseMiddle, Row: 9, Col: 79, Mods: ModCtrl | ModShift}, 1002, true, "\x1b[<21;80;10m"},
		{"sgr double click", Mouse{Kind: MouseDoubleClick, Row: 1, Col: 1}, 1000, true, "\x1b[<0;2;2M\x1b[<0;2;2m\x1b[<0;2;2M\x1b[<0;2;2m"},
		{"sgr drag 1002", Mouse{Kind: MouseDrag, Row: 1, Col: 1, ToRow: 3, ToCol: 10}, 1002, true, "\x1b[<0;2;2M\x1b[<32;11;4M\x1b[<0;11;4m"},
		{"sgr drag 1000 has no motion", Mouse{Kind: MouseDrag, Row: 1, Col: 1, ToRow: 3, ToCol: 10}, 1000, true, "\x1b[<0;2;2M\x1b[<0;11;4m"},
		{"sgr wheel up", Mouse{Kind: MouseWheelUp, Row: 5, Col: 5}, 1000, true, "\x1b[<64;6;6M"},
		{"sgr wheel down alt", Mouse{Kind: MouseWheelDown, Row: 5, Col: 5, Mods: ModAlt}, 1000, true, "\x1b[<73;6;6M"},
		{"sgr move 1003", Mouse{Kind: MouseMove, Row: 0, Col: 2}, 1003, true, "\x1b[<35;3;1M"},
		{"x10 click", Mouse{Kind: MouseClick, Row: 2, Col: 4}, 1000, false, "\x1b[M %#\x1b[M#%#"},
		{"x10 right press shift", Mouse{Kind: MousePress, Button: MouseRight, Row: 0, Col: 0, Mods: ModShift}, 1000, false, "\x1b[M&!!"},
		{"x10 drag 1002", Mouse{Kind: MouseDrag, Row: 0, Col: 0, ToRow: 1, ToCol: 2}, 1002, false, "\x1b[M !!\x1b[M@#\"\x1b[M##\""},
		{"x10 wheel down", Mouse{Kind: MouseWheelDown, Row: 0, Col: 0}, 1000, false, "\x1b[Ma!!"},
		{"mode 9 click is its press, no modifiers", Mouse{Kind: MouseClick, Row: 0, Col: 0, Mods: ModCtrl}, 9, false, "\x1b[M !!"},
	}
	for _, c := range cases {
		b, err := mouseInput(c.m, c.m.Row, c.m.Col, size, c.tracking, c.sgr)
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, string(b), c.name)
	}
}

func TestMouseInputRefuses(t *testing.T) {
	size := Size{Rows: 24, Cols: 300}
	for _, c := range []struct {
		m        Mouse
		tracking int
		sgr      bool
		is       error
		msg      string
	}{
		{Mouse{Kind: MouseClick}, 0, true, ErrMouseNotEnabled, "has not enabled mouse reporting"},
		{Mouse{Kind: MouseMove}, 1002, true, ErrMouseNotEnabled, "a move without a button held is not reported in mouse mode 1002"},
		{Mouse{Kind: MouseWheelUp}, 9, false, ErrMouseNotEnabled, "the wheel is not reported in mouse mode 9"},
		{Mouse{Kind: MouseRelease}, 9, false, ErrMouseNotEnabled, "a release"},
		{Mouse{Kind: MouseClick, Row: 24}, 1000, true, ErrInvalidParams, "row: must be between 0 and 23, got 24"},
		{Mouse{Kind: MouseDrag, ToCol: -1}, 1000, true, ErrInvalidParams, "to_col: must be between 0 and 299, got -1"},
		{Mouse{Kind: MouseClick, Col: 250}, 1000, false, ErrInvalidParams, "past what the X10 mouse encoding can say"},
		{Mouse{Kind: MouseClick, Button: "fourth"}, 1000, true, ErrInvalidParams, `unknown button "fourth" (valid: left, middle, right)`},
		{Mouse{Kind: "hover"}, 1000, true, ErrInvalidParams, `unknown mouse gesture "hover" (valid: click, double_click,`},
	} {
		_, err := mouseInput(c.m, c.m.Row, c.m.Col, size, c.tracking, c.sgr)
		require.ErrorIs(t, err, c.is, c.msg)
		require.ErrorContains(t, err, c.msg)
	}
	// A click under SGR at a column X10 cannot say is fine.
	b, err := mouseInput(Mouse{Kind: MousePress, Col: 250}, 0, 250, size, 1000, true)
	require.NoError(t, err)
	require.Equal(t, "\x1b[<0;251;1M", string(b))
}
