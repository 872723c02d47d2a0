package ptywright

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		key    Key
		normal string
		app    string // application cursor mode
	}{
		{KeyEnter, "\r", "\r"},
		{KeyEscape, "\x1b", "\x1b"},
		{KeyTab, "\t", "\t"},
		{KeyShiftTab, "\x1b[Z", "\x1b[Z"},
		{KeyBackspace, "\x7f", "\x7f"},
		{KeyDelete, "\x1b[3~", "\x1b[3~"},
		{KeySpace, " ", " "},
		{KeyUp, "\x1b[A", "\x1bOA"},
		{KeyDown, "\x1b[B", "\x1bOB"},
		{KeyRight, "\x1b[C", "\x1bOC"},
		{KeyLeft, "\x1b[D", "\x1bOD"},
		{KeyHome, "\x1b[H", "\x1bOH"},
		{KeyEnd, "\x1b[F", "\x1bOF"},
		{KeyPageUp, "\x1b[5~", "\x1b[5~"},
		{KeyPageDown, "\x1b[6~", "\x1b[6~"},
		{KeyInsert, "\x1b[2~", "\x1b[2~"},
		{Ctrl('a'), "\x01", "\x01"},
		{Ctrl('b'), "\x02", "\x02"},
		{Ctrl('c'), "\x03", "\x03"},
		{Ctrl('d'), "\x04", "\x04"},
		{Ctrl('e'), "\x05", "\x05"},
		{Ctrl('f'), "\x06", "\x06"},
		{Ctrl('g'), "\x07", "\x07"},
		{Ctrl('k'), "\x0b", "\x0b"},
		{Ctrl('l'), "\x0c", "\x0c"},
		{Ctrl('n'), "\x0e", "\x0e"},
		{Ctrl('o'), "\x0f", "\x0f"},
		{Ctrl('p'), "\x10", "\x10"},
		{Ctrl('q'), "\x11", "\x11"},
		{Ctrl('r'), "\x12", "\x12"},
		{Ctrl('s'), "\x13", "\x13"},
		{Ctrl('t'), "\x14", "\x14"},
		{Ctrl('u'), "\x15", "\x15"},
		{Ctrl('v'), "\x16", "\x16"},
		{Ctrl('w'), "\x17", "\x17"},
		{Ctrl('x'), "\x18", "\x18"},
		{Ctrl('y'), "\x19", "\x19"},
		{Ctrl('z'), "\x1a", "\x1a"},
		{F(1), "\x1bOP", "\x1bOP"},
		{F(2), "\x1bOQ", "\x1bOQ"},
		{F(3), "\x1bOR", "\x1bOR"},
		{F(4), "\x1bOS", "\x1bOS"},
		{F(5), "\x1b[15~", "\x1b[15~"},
		{F(6), "\x1b[17~", "\x1b[17~"},
		{F(7), "\x1b[18~", "\x1b[18~"},
		{F(8), "\x1b[19~", "\x1b[19~"},
		{F(9), "\x1b[20~", "\x1b[20~"},
		{F(10), "\x1b[21~", "\x1b[21~"},
		{F(11), "\x1b[23~", "\x1b[23~"},
		{F(12), "\x1b[24~", "\x1b[24~"},
	}
	// The table above must cover every key exactly once, in Keys() order.
	want := make([]Key, len(tests))
	for i, tt := range tests {
		want[i] = tt.key
	}
	require.ElementsMatch(t, want, Keys())
	require.Len(t, Keys(), 50)

	for _, tt := range tests {
		t.Run(string(tt.key), func(t *testing.T) {
			require.Equal(t, []byte(tt.normal), tt.key.Bytes(false), "normal mode")
			require.Equal(t, []byte(tt.app), tt.key.Bytes(true), "application cursor mode")
			require.True(t, tt.key.Valid())
			parsed, err := ParseKey(string(tt.key))
			require.NoError(t, err)
			require.Equal(t, tt.key, parsed)
		})
	}
}

func TestCtrlKeysAreLetterAnd0x1f(t *testing.T) {
	excluded := map[byte]bool{'h': true, 'i': true, 'j': true, 'm': true}
	for c := byte('a'); c <= 'z'; c++ {
		k := Key("ctrl_" + string(c))
		if excluded[c] {
			require.False(t, k.Valid(), "%s aliases another key and must not exist", k)
			continue
		}
		require.Equal(t, []byte{(c - 'a' + 'A') & 0x1f}, k.Bytes(false), string(k))
	}
}

func TestKeysOrderIsStable(t *testing.T) {
	first := Keys()
	require.Equal(t, first, Keys())
	require.Equal(t, []Key{KeyEnter, KeyEscape, KeyTab}, first[:3])
	require.Equal(t, F(12), first[len(first)-1])
	// Callers may modify the result without affecting the table.
	first[0] = "mutated"
	require.Equal(t, KeyEnter, Keys()[0])
}

func TestKeyBytesIsAFreshSlice(t *testing.T) {
	b := KeyUp.Bytes(false)
	b[0] = 'X'
	require.Equal(t, []byte("\x1b[A"), KeyUp.Bytes(false))
}

func TestParseKeyRejects(t *testing.T) {
	for _, name := range []string{"", "Enter", "ENTER", "shift-tab", "ctrl_h", "ctrl_i", "ctrl_j", "ctrl_m", "f0", "f13", "ctrl_", " enter", "enter "} {
		t.Run(name, func(t *testing.T) {
			k, err := ParseKey(name)
			require.ErrorIs(t, err, ErrUnknownKey)
			require.Empty(t, k)
			require.False(t, Key(name).Valid())
			require.Nil(t, Key(name).Bytes(false))
			require.Contains(t, err.Error(), `"`+name+`"`)
			for _, valid := range Keys() {
				require.Contains(t, err.Error(), string(valid))
			}
			require.True(t, strings.Contains(err.Error(), "enter, escape, tab, shift_tab"), err.Error())
		})
	}
}

// TestCtrlAndFNameTheWireKeys: the constructors give the snake_case wire
// names, and a name outside the table stays invalid.
func TestCtrlAndFNameTheWireKeys(t *testing.T) {
	require.Equal(t, Key("ctrl_c"), Ctrl('c'))
	require.Equal(t, Key("ctrl_c"), Ctrl('C'))
	require.Equal(t, Key("f5"), F(5))
	for _, k := range []Key{Ctrl('h'), Ctrl('i'), Ctrl('j'), Ctrl('m'), Ctrl('['), F(0), F(13)} {
		require.False(t, k.Valid(), "%q", k)
		require.Nil(t, k.Bytes(false), "%q", k)
	}
	require.Len(t, Keys(), 16+22+12)
}
