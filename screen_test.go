package ptywright

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScreenAnswersQueriesUntilClosed(t *testing.T) {
	var got []string
	s, err := newScreen(ScreenOptions{Size: Size{Rows: 5, Cols: 20}}, func(b []byte) { got = append(got, string(b)) })
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
	require.Equal(t, Cell{Row: 0, Col: 2, Text: " ", Style: CellStyle{Foreground: "default", Background: "default"}}, snap.Cells[2])
}

func TestScreenScrollback(t *testing.T) {
	s, err := NewScreenWith(ScreenOptions{Size: Size{Rows: 3, Cols: 10}, Scrollback: 4})
	require.NoError(t, err)
	defer s.Close()
	require.Empty(t, s.Scrollback())
	for i := 1; i <= 8; i++ {
		_, _ = s.Write([]byte(fmt.Sprintf("line %d  \r\n", i)))
	}
	require.Equal(t, []string{"line 3", "line 4", "line 5", "line 6"}, s.Scrollback(), "the newest 4, trailing spaces trimmed")
	require.Equal(t, "line 7\nline 8", s.PlainText())

	// Growing takes rows back from the scrollback; shrinking gives them
	// back.
	require.NoError(t, s.Resize(Size{Rows: 5, Cols: 10}))
	require.Equal(t, "line 5\nline 6\nline 7\nline 8", s.PlainText())
	require.Equal(t, []string{"line 3", "line 4"}, s.Scrollback())
	require.NoError(t, s.Resize(Size{Rows: 2, Cols: 10}))
	require.Equal(t, "line 8", s.PlainText(), "the cursor's row (blank, under line 8) stays last")
	require.Equal(t, []string{"line 4", "line 5", "line 6", "line 7"}, s.Scrollback())

	// A negative Scrollback keeps none; zero the default.
	none, err := NewScreenWith(ScreenOptions{Size: Size{Rows: 1, Cols: 10}, Scrollback: -1})
	require.NoError(t, err)
	defer none.Close()
	_, _ = none.Write([]byte("a\r\nb\r\n"))
	require.Empty(t, none.Scrollback())
	def, err := NewScreen(Size{Rows: 1, Cols: 10})
	require.NoError(t, err)
	defer def.Close()
	for range defaultScrollback + 10 {
		_, _ = def.Write([]byte("x\r\n"))
	}
	require.Len(t, def.Scrollback(), defaultScrollback)
}
