package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModifiedKeysAsXtermSendsThem compares the modified keys with xterm's
// documented encodings (ctlseqs, "PC-Style Function Keys", with the default
// modifyCursorKeys=2 and modifyFunctionKeys=2): the parameter is 1 plus
// Shift 1, Alt 2, Control 4, and a modified cursor key is CSI 1 ; m X in
// either cursor mode. The strings are written out, not computed.
func TestModifiedKeysAsXtermSendsThem(t *testing.T) {
	xterm := map[Key]string{
		// Every modifier combination on one key.
		"shift_left":          "\x1b[1;2D",
		"alt_left":            "\x1b[1;3D",
		"alt_shift_left":      "\x1b[1;4D",
		"ctrl_left":           "\x1b[1;5D",
		"ctrl_shift_left":     "\x1b[1;6D",
		"ctrl_alt_left":       "\x1b[1;7D",
		"ctrl_alt_shift_left": "\x1b[1;8D",
		// Cursor keys, Home and End: CSI 1 ; m final.
		"shift_up":         "\x1b[1;2A",
		"alt_down":         "\x1b[1;3B",
		"ctrl_shift_right": "\x1b[1;6C",
		"ctrl_home":        "\x1b[1;5H",
		"shift_end":        "\x1b[1;2F",
		// The editing keypad: CSI n ; m ~.
		"shift_insert":    "\x1b[2;2~",
		"ctrl_delete":     "\x1b[3;5~",
		"alt_page_up":     "\x1b[5;3~",
		"ctrl_page_down":  "\x1b[6;5~",
		"shift_page_down": "\x1b[6;2~",
		// F1-F4: SS3 P..S unmodified, CSI 1 ; m P..S modified.
		"shift_f1":    "\x1b[1;2P",
		"ctrl_f2":     "\x1b[1;5Q",
		"alt_f3":      "\x1b[1;3R",
		"ctrl_alt_f4": "\x1b[1;7S",
		// F5-F12: CSI n ; m ~ with xterm's numbers (no 16 or 22).
		"shift_f5":           "\x1b[15;2~",
		"ctrl_f6":            "\x1b[17;5~",
		"alt_f7":             "\x1b[18;3~",
		"shift_f8":           "\x1b[19;2~",
		"ctrl_shift_f9":      "\x1b[20;6~",
		"alt_shift_f10":      "\x1b[21;4~",
		"ctrl_f11":           "\x1b[23;5~",
		"ctrl_alt_shift_f12": "\x1b[24;8~",
	}
	for k, want := range xterm {
		parsed, err := ParseKey(string(k))
		require.NoError(t, err, k)
		require.Equal(t, k, parsed)
		require.True(t, k.Valid(), k)
		require.Equal(t, want, string(k.Bytes(false)), k)
		require.Equal(t, want, string(k.Bytes(true)), "%s in application cursor mode", k)
	}
	// Unmodified keys keep their encodings, SS3 F1 and DECCKM arrows too.
	require.Equal(t, "\x1bOP", string(F(1).Bytes(false)))
	require.Equal(t, "\x1bOD", string(KeyLeft.Bytes(true)))
}

func TestKeyWithNamesTheModifiedKey(t *testing.T) {
	require.Equal(t, Key("alt_left"), KeyLeft.With(ModAlt))
	require.Equal(t, Key("ctrl_shift_right"), KeyRight.With(ModShift|ModCtrl))
	require.Equal(t, Key("shift_f5"), F(5).With(ModShift))
	require.Equal(t, Key("ctrl_alt_shift_delete"), KeyDelete.With(ModCtrl|ModAlt|ModShift))
	require.Equal(t, KeyUp, KeyUp.With(0))
	// Modifiers add up, in the one order names give them.
	require.Equal(t, Key("ctrl_shift_left"), KeyLeft.With(ModShift).With(ModCtrl))
	require.Equal(t, Key("alt_left"), KeyLeft.With(ModAlt).With(ModAlt))
	// Keys that take no modifiers are not keys.
	for _, k := range []Key{KeyEnter.With(ModAlt), Ctrl('c').With(ModShift), KeyTab.With(ModCtrl), F(13).With(ModAlt)} {
		require.False(t, k.Valid(), k)
		_, err := ParseKey(string(k))
		require.ErrorIs(t, err, ErrUnknownKey, k)
	}
}

func TestParseKeyRejectsModifiersOutOfOrder(t *testing.T) {
	for name, hint := range map[string]string{
		"shift_ctrl_right": "(did you mean ctrl_shift_right?)",
		"alt_ctrl_f5":      "(did you mean ctrl_alt_f5?)",
		"ctrl_ctrl_left":   "as alt_left, ctrl_shift_right, shift_f5)",
		"alt_enter":        "as alt_left, ctrl_shift_right, shift_f5)",
		"super_left":       "ctrl_, alt_, shift_ in that order",
		"Alt_Left":         "ctrl_, alt_, shift_ in that order",
	} {
		_, err := ParseKey(name)
		require.ErrorIs(t, err, ErrUnknownKey, name)
		require.ErrorContains(t, err, hint, name)
		require.False(t, Key(name).Valid(), name)
	}
}
