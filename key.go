package ptywright

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Key names a single key press by its snake_case wire name (the value of a
// {"type":"key"} action). Use the Key* constants, Ctrl, F or ParseKey; a Key
// outside the table has no byte sequence.
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

// Ctrl returns the key that types letter with Control held: Ctrl('c') is
// "ctrl_c" (ETX, what interrupts a program). Upper and lower case name the
// same key. ctrl_h, ctrl_i, ctrl_j and ctrl_m are deliberately absent from
// the key table (Ctrl('h').Valid() is false): they send the same bytes as
// backspace (in some terminals), tab, line feed and enter, and one name per
// byte sequence keeps plans readable.
func Ctrl(letter rune) Key { return Key("ctrl_" + string(unicode.ToLower(letter))) }

// F returns function key n, 1 to 12 (F(5) is "f5"), encoded as xterm does.
// Other numbers give a Key that is not Valid.
func F(n int) Key { return Key("f" + strconv.Itoa(n)) }

// keyCode is one row of the key table: the bytes sent normally and, when they
// differ, in application cursor mode.
type keyCode struct {
	key    Key
	normal string
	app    string // "" means same as normal
}

// keyTable is the single source of truth for names, order and bytes: the
// editing and navigation keys, then ctrl_a..ctrl_z (less h, i, j and m:
// see Ctrl), then f1..f12.
var keyTable = append(append([]keyCode{
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
}, ctrlKeys()...), functionKeys()...)

// ctrlKeys are the Control-letter rows: each sends the letter's C0 code.
func ctrlKeys() []keyCode {
	var out []keyCode
	for c := 'a'; c <= 'z'; c++ {
		if strings.ContainsRune("hijm", c) {
			continue
		}
		out = append(out, keyCode{key: Ctrl(c), normal: string(rune(c - 'a' + 1))})
	}
	return out
}

// functionKeys are F1..F12 as xterm sends them.
func functionKeys() []keyCode {
	seqs := [...]string{"\x1bOP", "\x1bOQ", "\x1bOR", "\x1bOS", "\x1b[15~", "\x1b[17~", "\x1b[18~", "\x1b[19~", "\x1b[20~", "\x1b[21~", "\x1b[23~", "\x1b[24~"}
	out := make([]keyCode, len(seqs))
	for i, seq := range seqs {
		out[i] = keyCode{key: F(i + 1), normal: seq}
	}
	return out
}

func lookupKey(k Key) (keyCode, bool) {
	for _, c := range keyTable {
		if c.key == k {
			return c, true
		}
	}
	if base, mods, ok := modified(k); ok {
		return keyCode{key: k, normal: modifiedBytes(base, mods)}, true
	}
	return keyCode{}, false
}

// Keys returns every valid key name in table order (editing keys, navigation,
// ctrl_a..ctrl_z, f1..f12), for completion and error messages. The
// modified keys (Key.With: alt_left, ctrl_shift_f5, ...) are valid too but
// not listed: they are the keys that take modifiers under ctrl_, alt_ and
// shift_ prefixes.
func Keys() []Key {
	out := make([]Key, len(keyTable))
	for i, c := range keyTable {
		out[i] = c.key
	}
	return out
}

// ParseKey accepts exactly the snake_case names Keys returns, and the
// modified keys Key.With names: ctrl_, alt_ and shift_, in that order, before
// up, down, left, right, home, end, page_up, page_down, insert, delete or
// f1..f12 ("alt_left", "ctrl_shift_right", "shift_f5"). It does not fold
// case, hyphens or the order of modifiers: plugins normalise aliases
// themselves, and one name per byte sequence keeps "Enter" vs "enter" typos
// from silently passing. The error wraps ErrUnknownKey, lists every valid
// name and says how modified keys are named.
func ParseKey(name string) (Key, error) {
	if _, ok := lookupKey(Key(name)); ok {
		return Key(name), nil
	}
	return "", fmt.Errorf("%w %q (valid keys: %s%s)", ErrUnknownKey, name, keyNameList(), modifierHint(name))
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
// enabling DECCKM; pass the screen's current mode. A modified key is sent
// as xterm sends it, the same in either mode: CSI 1 ; m A..D, H, F for the
// arrows, Home and End, CSI 1 ; m P..S for F1-F4, CSI n ; m ~ for Insert,
// Delete, PageUp, PageDown and F5-F12, m being 1 plus the Modifier bits
// (alt_left is ESC [ 1 ; 3 D). An unknown key yields nil.
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
