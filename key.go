package ptywright

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownKey is wrapped by ParseKey when a name is not in the key table.
var ErrUnknownKey = errors.New("unknown key")

// Key names a single key press by its snake_case wire name (the value of a
// {"type":"key"} action). Use the Key* constants or ParseKey; a Key outside the
// table has no byte sequence.
type Key string

// Submission and editing keys.
const (
	KeyEnter     Key = "enter"
	KeyEscape    Key = "escape"
	KeyTab       Key = "tab"
	KeyShiftTab  Key = "shift_tab"
	KeyBackspace Key = "backspace"
	KeyDelete    Key = "delete"
	KeySpace     Key = "space"
)

// Cursor and navigation keys. Arrows, Home and End change encoding when the
// program enables application cursor mode (DECCKM); Key.Bytes takes that mode.
const (
	KeyUp       Key = "up"
	KeyDown     Key = "down"
	KeyLeft     Key = "left"
	KeyRight    Key = "right"
	KeyHome     Key = "home"
	KeyEnd      Key = "end"
	KeyPageUp   Key = "page_up"
	KeyPageDown Key = "page_down"
	KeyInsert   Key = "insert"
)

// Control combinations. ctrl_h, ctrl_i, ctrl_j and ctrl_m are deliberately
// absent: they send the same bytes as backspace (in some terminals), tab,
// line feed and enter, and one name per byte sequence keeps plans readable.
const (
	KeyCtrlA Key = "ctrl_a"
	KeyCtrlB Key = "ctrl_b"
	KeyCtrlC Key = "ctrl_c"
	KeyCtrlD Key = "ctrl_d"
	KeyCtrlE Key = "ctrl_e"
	KeyCtrlF Key = "ctrl_f"
	KeyCtrlG Key = "ctrl_g"
	KeyCtrlK Key = "ctrl_k"
	KeyCtrlL Key = "ctrl_l"
	KeyCtrlN Key = "ctrl_n"
	KeyCtrlO Key = "ctrl_o"
	KeyCtrlP Key = "ctrl_p"
	KeyCtrlQ Key = "ctrl_q"
	KeyCtrlR Key = "ctrl_r"
	KeyCtrlS Key = "ctrl_s"
	KeyCtrlT Key = "ctrl_t"
	KeyCtrlU Key = "ctrl_u"
	KeyCtrlV Key = "ctrl_v"
	KeyCtrlW Key = "ctrl_w"
	KeyCtrlX Key = "ctrl_x"
	KeyCtrlY Key = "ctrl_y"
	KeyCtrlZ Key = "ctrl_z"
)

// Function keys, encoded as xterm does.
const (
	KeyF1  Key = "f1"
	KeyF2  Key = "f2"
	KeyF3  Key = "f3"
	KeyF4  Key = "f4"
	KeyF5  Key = "f5"
	KeyF6  Key = "f6"
	KeyF7  Key = "f7"
	KeyF8  Key = "f8"
	KeyF9  Key = "f9"
	KeyF10 Key = "f10"
	KeyF11 Key = "f11"
	KeyF12 Key = "f12"
)

// keyCode is one row of the key table: the bytes sent normally and, when they
// differ, in application cursor mode.
type keyCode struct {
	key    Key
	normal string
	app    string // "" means same as normal
}

// keyTable is the single source of truth for names, order and bytes.
var keyTable = [...]keyCode{
	{KeyEnter, "\r", ""},
	{KeyEscape, "\x1b", ""},
	{KeyTab, "\t", ""},
	{KeyShiftTab, "\x1b[Z", ""},
	{KeyBackspace, "\x7f", ""},
	{KeyDelete, "\x1b[3~", ""},
	{KeySpace, " ", ""},
	{KeyUp, "\x1b[A", "\x1bOA"},
	{KeyDown, "\x1b[B", "\x1bOB"},
	{KeyLeft, "\x1b[D", "\x1bOD"},
	{KeyRight, "\x1b[C", "\x1bOC"},
	{KeyHome, "\x1b[H", "\x1bOH"},
	{KeyEnd, "\x1b[F", "\x1bOF"},
	{KeyPageUp, "\x1b[5~", ""},
	{KeyPageDown, "\x1b[6~", ""},
	{KeyInsert, "\x1b[2~", ""},
	{KeyCtrlA, "\x01", ""},
	{KeyCtrlB, "\x02", ""},
	{KeyCtrlC, "\x03", ""},
	{KeyCtrlD, "\x04", ""},
	{KeyCtrlE, "\x05", ""},
	{KeyCtrlF, "\x06", ""},
	{KeyCtrlG, "\x07", ""},
	{KeyCtrlK, "\x0b", ""},
	{KeyCtrlL, "\x0c", ""},
	{KeyCtrlN, "\x0e", ""},
	{KeyCtrlO, "\x0f", ""},
	{KeyCtrlP, "\x10", ""},
	{KeyCtrlQ, "\x11", ""},
	{KeyCtrlR, "\x12", ""},
	{KeyCtrlS, "\x13", ""},
	{KeyCtrlT, "\x14", ""},
	{KeyCtrlU, "\x15", ""},
	{KeyCtrlV, "\x16", ""},
	{KeyCtrlW, "\x17", ""},
	{KeyCtrlX, "\x18", ""},
	{KeyCtrlY, "\x19", ""},
	{KeyCtrlZ, "\x1a", ""},
	{KeyF1, "\x1bOP", ""},
	{KeyF2, "\x1bOQ", ""},
	{KeyF3, "\x1bOR", ""},
	{KeyF4, "\x1bOS", ""},
	{KeyF5, "\x1b[15~", ""},
	{KeyF6, "\x1b[17~", ""},
	{KeyF7, "\x1b[18~", ""},
	{KeyF8, "\x1b[19~", ""},
	{KeyF9, "\x1b[20~", ""},
	{KeyF10, "\x1b[21~", ""},
	{KeyF11, "\x1b[23~", ""},
	{KeyF12, "\x1b[24~", ""},
}

func lookupKey(k Key) (keyCode, bool) {
	for _, c := range keyTable {
		if c.key == k {
			return c, true
		}
	}
	return keyCode{}, false
}

// Keys returns every valid key name in table order (editing keys, navigation,
// ctrl_a..ctrl_z, f1..f12), for completion and error messages.
func Keys() []Key {
	out := make([]Key, len(keyTable))
	for i, c := range keyTable {
		out[i] = c.key
	}
	return out
}

// ParseKey accepts exactly the snake_case names Keys returns. It does not fold
// case or hyphens: plugins normalise aliases themselves, and a strict table
// keeps "Enter" vs "enter" typos from silently passing. The error wraps
// ErrUnknownKey and lists every valid name.
func ParseKey(name string) (Key, error) {
	if _, ok := lookupKey(Key(name)); ok {
		return Key(name), nil
	}
	return "", fmt.Errorf("%w %q (valid keys: %s)", ErrUnknownKey, name, keyNameList())
}

func keyNameList() string {
	names := make([]string, len(keyTable))
	for i, c := range keyTable {
		names[i] = string(c.key)
	}
	return strings.Join(names, ", ")
}

// Valid reports whether k is in the key table.
func (k Key) Valid() bool {
	_, ok := lookupKey(k)
	return ok
}

// Bytes returns what a terminal sends for k. applicationCursor selects the
// SS3 forms (ESC O A) of the arrows, Home and End that programs expect after
// enabling DECCKM; pass the screen's current mode. An unknown key yields nil.
// The result is a fresh slice the caller may keep or modify.
func (k Key) Bytes(applicationCursor bool) []byte {
	c, ok := lookupKey(k)
	if !ok {
		return nil
	}
	if applicationCursor && c.app != "" {
		return []byte(c.app)
	}
	return []byte(c.normal)
}
