package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScreenAnswersQueriesUntilClosed(t *testing.T) {
	var got []string
	s, err := newScreen(Size{Rows: 5, Cols: 20}, func(b []byte) { got = append(got, string(b)) })
	require.NoError(t, err)
	_, _ = s.Write([]byte("ab\x1b[6n\x1b[5n\x1b[c"))
	require.Equal(t, []string{"\x1b[1;3R", "\x1b[0n", "\x1b[?62;1;6;22c"}, got)

	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "a second Close is a no-op")
	_, _ = s.Write([]byte("cd\x1b[6n"))
	require.Len(t, got, 3, "no reply after Close")
	require.Equal(t, "abcd", s.PlainText(), "a closed screen still parses")
}

func TestScreenSnapshotCells(t *testing.T) {
	s, err := NewScreen(Size{Rows: 3, Cols: 8})
	require.NoError(t, err)
	defer s.Close()
	_, _ = s.Write([]byte("\x1b]2;T\a\x1b[?1h\x1b[?2004h\x1b[1;4;38;2;1;2;3;48;5;200m中\x1b[m \x1b[2;3H\x1b[?25l"))
	snap := s.Snapshot(true)
	require.Equal(t, "中", snap.PlainText)
	require.Equal(t, Cursor{Row: 1, Col: 2, Visible: false}, snap.Cursor)
	require.Equal(t, "T", snap.Title)
	require.True(t, snap.ApplicationCursor)
	require.True(t, snap.BracketedPaste)
	require.False(t, snap.AlternateScreen)
	wide := CellStyle{Foreground: "rgb:1:2:3", Background: "idx:200", Bold: true, Underline: true, UnderlineStyle: "single"}
	require.Equal(t, Cell{Row: 0, Col: 0, Text: "中", Wide: true, Style: wide}, snap.Cells[0])
	// The second cell shows the wide character's rendition.
	require.Equal(t, Cell{Row: 0, Col: 1, Text: "", WideContinuation: true, Style: wide}, snap.Cells[1])
	require.Equal(t, Cell{Row: 0, Col: 2, Text: " ", Style: defaultCellStyle()}, snap.Cells[2])
}
