package ptywright

import (
	"fmt"
	"strconv"
	"strings"
)

// Modifier is a set of modifier keys held with a key: ModShift, ModAlt,
// ModCtrl, or'd together.
type Modifier uint8

// The modifiers. Their bits are xterm's: a modified key's CSI parameter is
// 1 plus their sum (Shift 2, Alt 3, Shift+Alt 4, Ctrl 5, Ctrl+Shift 6,
// Ctrl+Alt 7, all three 8).
const (
	ModShift Modifier = 1 << iota
	ModAlt
	ModCtrl
)

// modifierPrefixes are the name prefixes of the modifiers, in the one order
// a key name may give them: ctrl, alt, shift ("ctrl_shift_right", not
// "shift_ctrl_right").
var modifierPrefixes = []struct {
	prefix string
	mod    Modifier
}{{"ctrl_", ModCtrl}, {"alt_", ModAlt}, {"shift_", ModShift}}

// modifiable are the keys that take modifiers, with how xterm encodes them
// modified: CSI 1 ; m final for the arrows, Home, End and F1-F4 (final A..D,
// H, F, P..S), CSI num ; m ~ for the rest.
var modifiable = map[Key]struct {
	num   int
	final byte
}{
	KeyUp: {1, 'A'}, KeyDown: {1, 'B'}, KeyRight: {1, 'C'}, KeyLeft: {1, 'D'},
	KeyHome: {1, 'H'}, KeyEnd: {1, 'F'},
	KeyInsert: {2, '~'}, KeyDelete: {3, '~'}, KeyPageUp: {5, '~'}, KeyPageDown: {6, '~'},
	F(1): {1, 'P'}, F(2): {1, 'Q'}, F(3): {1, 'R'}, F(4): {1, 'S'},
	F(5): {15, '~'}, F(6): {17, '~'}, F(7): {18, '~'}, F(8): {19, '~'},
	F(9): {20, '~'}, F(10): {21, '~'}, F(11): {23, '~'}, F(12): {24, '~'},
}

// With returns k with mods held: KeyLeft.With(ModAlt) is "alt_left",
// KeyRight.With(ModCtrl|ModShift) is "ctrl_shift_right", F(5).With(ModShift)
// is "shift_f5". The keys that take modifiers are the arrows, Home, End,
// PageUp, PageDown, Insert, Delete and F1-F12; With on another key gives a
// Key that is not Valid. On a modified key it adds mods to its modifiers
// (KeyLeft.With(ModShift).With(ModCtrl) is "ctrl_shift_left"). No modifier
// gives k itself.
func (k Key) With(mods Modifier) Key {
	if base, had, ok := modified(k); ok {
		k, mods = base, mods|had
	}
	var b strings.Builder
	for _, p := range modifierPrefixes {
		if mods&p.mod != 0 {
			b.WriteString(p.prefix)
		}
	}
	return Key(b.String() + string(k))
}

// modified splits a modified key's name into its modifiers and base key;
// ok is false for a name that is not one (an unmodified key, a modifier
// twice or out of order, a base that takes none).
func modified(k Key) (base Key, mods Modifier, ok bool) {
	rest := string(k)
	next := 0
	for {
		found := false
		for i := next; i < len(modifierPrefixes); i++ {
			p := modifierPrefixes[i]
			if r, cut := strings.CutPrefix(rest, p.prefix); cut {
				rest, mods, next, found = r, mods|p.mod, i+1, true
				break
			}
		}
		if !found {
			break
		}
	}
	if _, takes := modifiable[Key(rest)]; !takes || mods == 0 {
		return "", 0, false
	}
	return Key(rest), mods, true
}

// modifiedBytes is what xterm sends for base with mods held. It is the same
// in application cursor mode: xterm sends CSI 1 ; m A for a modified arrow
// either way.
func modifiedBytes(base Key, mods Modifier) string {
	c := modifiable[base]
	m := strconv.Itoa(1 + int(mods))
	if c.final == '~' {
		return "\x1b[" + strconv.Itoa(c.num) + ";" + m + "~"
	}
	return "\x1b[1;" + m + string(c.final)
}

// modifierHint is the part of ParseKey's error that says how modified keys
// are named, and, for a name that looks like one but is not, why.
func modifierHint(name string) string {
	const how = "; with modifiers: ctrl_, alt_, shift_ in that order before up, down, left, right, home, end, page_up, page_down, insert, delete or f1..f12, as alt_left, ctrl_shift_right, shift_f5"
	rest := name
	var mods Modifier
	for {
		found := false
		for _, p := range modifierPrefixes {
			if r, cut := strings.CutPrefix(rest, p.prefix); cut && mods&p.mod == 0 {
				rest, mods, found = r, mods|p.mod, true
			}
		}
		if !found {
			break
		}
	}
	if mods == 0 || rest == name {
		return how
	}
	if _, takes := modifiable[Key(rest)]; takes {
		return fmt.Sprintf("%s (did you mean %s?)", how, Key(rest).With(mods))
	}
	return how
}
