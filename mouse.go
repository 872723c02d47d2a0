package ptywright

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrMouseNotEnabled is returned by Session.Mouse when the program has not
// turned on mouse reporting (DECSET 9, 1000, 1002 or 1003), or has turned on
// a mode that does not report the gesture asked for (motion without a button
// held is reported only under 1003, wheels and releases not under 9):
// xterm would send it nothing. Nothing was written.
var ErrMouseNotEnabled = errors.New("ptywright: the program has not enabled mouse reporting")

// MouseButton names a mouse button; "" is MouseLeft.
type MouseButton string

// The buttons.
const (
	MouseLeft   MouseButton = "left"
	MouseMiddle MouseButton = "middle"
	MouseRight  MouseButton = "right"
)

// MouseKind is a mouse gesture.
type MouseKind string

// The gestures. A click is a press and a release at one cell, a double
// click two clicks; a drag presses at Row, Col, moves to ToRow, ToCol and
// releases there; a wheel turns one notch.
const (
	MouseClick       MouseKind = "click"
	MouseDoubleClick MouseKind = "double_click"
	MousePress       MouseKind = "press"
	MouseRelease     MouseKind = "release"
	MouseMove        MouseKind = "move"
	MouseDrag        MouseKind = "drag"
	MouseWheelUp     MouseKind = "wheel_up"
	MouseWheelDown   MouseKind = "wheel_down"
)

// Mouse is one gesture at a cell of the screen, for Session.Mouse.
type Mouse struct {
	Kind   MouseKind
	Button MouseButton // "" is MouseLeft; wheels ignore it
	// Row and Col are the cell, from 0 at the top left.
	Row, Col int
	// ToRow and ToCol are where a drag ends.
	ToRow, ToCol int
	// Mods are the keys held (ModShift, ModAlt, ModCtrl): xterm reports them
	// in the button code, except in X10 mode (9).
	Mods Modifier
	// Text, when set, is a locator: the gesture happens at the first cell of
	// its first occurrence on the screen (top to bottom, left to right)
	// instead of Row and Col. Regex likewise, at the first cell of its
	// first match within a row. At most one of them.
	Text  string
	Regex string
}

// MouseResult is what Session.Mouse did: the input's Written (its Sequence
// is the one to wait After) and the cell the gesture started at, the one
// the locator found when there was one.
type MouseResult struct {
	Written
	Row, Col int
}

// Mouse performs m as xterm reports it to the program, in the encoding the
// program asked for: SGR (CSI < b ; x ; y M/m) when it turned on mode 1006,
// the X10 form (CSI M b x y, bytes offset by 32, columns and rows up to 223)
// otherwise. Under mode 1000 a drag is its press and its release, under
// 1002 and 1003 the motion between them too; a move without a button is
// reported only under 1003. When the program has not turned mouse
// reporting on, or not in a mode that reports m, nothing is written and
// the error wraps ErrMouseNotEnabled. A locator that finds nothing on the
// screen, or a cell off the screen, wraps ErrInvalidParams.
func (s *Session) Mouse(ctx context.Context, m Mouse) (MouseResult, error) {
	if s.isClosed() {
		return MouseResult{}, ErrSessionClosed
	}
	tracking, sgr := s.screen.mouseModes()
	res := MouseResult{Row: m.Row, Col: m.Col}
	size := s.Size()
	if m.Text != "" || m.Regex != "" {
		row, col, err := locate(s.Snapshot(SnapshotOptions{Cells: true, Raw: true}), m.Text, m.Regex)
		if err != nil {
			return res, err
		}
		res.Row, res.Col = row, col
	}
	b, err := mouseInput(m, res.Row, res.Col, size, tracking, sgr)
	if err != nil {
		return res, err
	}
	w, err := s.Perform(ctx, Text(string(b)))
	res.Written = w
	return res, err
}

// locate is the first cell of text, or of a match of the regex, on snap.
func locate(snap ScreenSnapshot, text, pattern string) (row, col int, err error) {
	if text != "" && pattern != "" {
		return 0, 0, &FieldError{Field: "regex", Reason: "give text or regex, not both", Err: ErrInvalidParams}
	}
	re := regexp.MustCompile(regexp.QuoteMeta(text))
	what := fmt.Sprintf("text %q", text)
	if pattern != "" {
		if re, err = regexp.Compile(pattern); err != nil {
			return 0, 0, &FieldError{Field: "regex", Reason: err.Error(), Err: ErrInvalidParams}
		}
		what = fmt.Sprintf("regex %q", pattern)
	}
	// Each row as its cells spell it, and the column each byte starts in.
	var line strings.Builder
	var cols []int
	flush := func() (int, bool) {
		loc := re.FindStringIndex(line.String())
		line.Reset()
		if loc == nil || loc[0] >= len(cols) {
			return 0, false
		}
		return cols[loc[0]], true
	}
	cur := -1
	for _, c := range snap.Cells {
		if c.Row != cur {
			if col, ok := flush(); ok {
				return cur, col, nil
			}
			cur, cols = c.Row, cols[:0]
		}
		if c.WideContinuation {
			continue
		}
		t := c.Text
		if t == "" {
			t = " "
		}
		line.WriteString(t)
		for range len(t) {
			cols = append(cols, c.Col)
		}
	}
	if col, ok := flush(); ok {
		return cur, col, nil
	}
	return 0, 0, fmt.Errorf("%w: %s is not on the screen", ErrInvalidParams, what)
}

// Mouse button codes (xterm's Cb, less the 32 of the X10 form).
const (
	mouseRelease = 3  // X10 form: a release names no button
	mouseMotion  = 32 // added to a motion
	mouseWheel   = 64 // wheel up; down is 65
)

// mouseInput is the bytes of m at row, col under the program's modes.
func mouseInput(m Mouse, row, col int, size Size, tracking int, sgr bool) ([]byte, error) {
	if tracking == 0 {
		return nil, ErrMouseNotEnabled
	}
	for _, c := range [][3]any{{"row", row, size.Rows}, {"col", col, size.Cols}, {"to_row", m.ToRow, size.Rows}, {"to_col", m.ToCol, size.Cols}} {
		if v, n := c[1].(int), c[2].(int); v < 0 || v >= n {
			if m.Kind != MouseDrag && strings.HasPrefix(c[0].(string), "to_") {
				continue
			}
			return nil, &FieldError{Field: c[0].(string), Reason: fmt.Sprintf("must be between 0 and %d, got %d", n-1, v), Err: ErrInvalidParams}
		}
	}
	var button int
	switch m.Button {
	case "", MouseLeft:
	case MouseMiddle:
		button = 1
	case MouseRight:
		button = 2
	default:
		return nil, &FieldError{Field: "button", Reason: fmt.Sprintf("unknown button %q (valid: left, middle, right)", m.Button), Err: ErrInvalidParams}
	}
	mods := 0
	if tracking != 9 {
		if m.Mods&ModShift != 0 {
			mods |= 4
		}
		if m.Mods&ModAlt != 0 {
			mods |= 8
		}
		if m.Mods&ModCtrl != 0 {
			mods |= 16
		}
	}
	var b []byte
	report := func(code, row, col int, release bool) error {
		code |= mods
		if sgr {
			final := byte('M')
			if release {
				final = 'm'
			}
			b = append(b, "\x1b[<"+strconv.Itoa(code)+";"+strconv.Itoa(col+1)+";"+strconv.Itoa(row+1)...)
			b = append(b, final)
			return nil
		}
		if release {
			code = mouseRelease | mods | code&mouseMotion
		}
		if col+1 > 223 || row+1 > 223 {
			return fmt.Errorf("%w: row %d, col %d is past what the X10 mouse encoding can say (223); the program did not turn on SGR reports (1006)", ErrInvalidParams, row, col)
		}
		b = append(b, '\x1b', '[', 'M', byte(32+code), byte(32+col+1), byte(32+row+1))
		return nil
	}
	notReported := func(what string) error {
		return fmt.Errorf("%w: %s is not reported in mouse mode %d", ErrMouseNotEnabled, what, tracking)
	}
	press := func(row, col int) error { return report(button, row, col, false) }
	release := func(row, col int) error {
		if tracking == 9 {
			return nil // X10 mode reports presses only.
		}
		return report(button, row, col, true)
	}
	var err error
	switch m.Kind {
	case MousePress:
		err = press(row, col)
	case MouseRelease:
		if tracking == 9 {
			return nil, notReported("a release")
		}
		err = release(row, col)
	case MouseClick, MouseDoubleClick:
		for range 1 + btoi(m.Kind == MouseDoubleClick) {
			if err = press(row, col); err == nil {
				err = release(row, col)
			}
			if err != nil {
				break
			}
		}
	case MouseMove:
		if tracking != 1003 {
			return nil, notReported("a move without a button held")
		}
		err = report(mouseRelease|mouseMotion, row, col, false)
	case MouseDrag:
		err = press(row, col)
		if err == nil && (tracking == 1002 || tracking == 1003) {
			err = report(button|mouseMotion, m.ToRow, m.ToCol, false)
		}
		if err == nil {
			err = release(m.ToRow, m.ToCol)
		}
	case MouseWheelUp, MouseWheelDown:
		if tracking == 9 {
			return nil, notReported("the wheel")
		}
		code := mouseWheel
		if m.Kind == MouseWheelDown {
			code++
		}
		err = report(code, row, col, false)
	default:
		return nil, &FieldError{Field: "kind", Reason: fmt.Sprintf("unknown mouse gesture %q (valid: click, double_click, press, release, move, drag, wheel_up, wheel_down)", m.Kind), Err: ErrInvalidParams}
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
