//go:build unix

package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// session_resize, session_read (output and scrollback) and session_list
// on a real shell.
func TestSessionResizeReadList(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "for i in $(seq 1 40); do echo line$i; done; printf '\\033[31mred\\033[m\\n'", "keys": []string{"enter"}}, nil)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^red$`}, &w)
	require.True(t, w.Matched, w.Screen)

	var read struct {
		Text string `json:"text"`
	}
	s.ok(t, "session_read", map[string]any{"session": st.Session, "chars": 20}, &read)
	require.Contains(t, read.Text, "line40\nred\n")
	require.NotContains(t, read.Text, "\x1b")
	s.ok(t, "session_read", map[string]any{"session": st.Session, "scrollback": true}, &read)
	require.Contains(t, read.Text, "line1\nline2\n")

	var resized struct {
		Resized bool `json:"resized"`
	}
	s.ok(t, "session_resize", map[string]any{"session": st.Session, "rows": 10, "cols": 50}, &resized)
	require.True(t, resized.Resized)
	s.fails(t, "session_resize", map[string]any{"session": st.Session, "rows": 0, "cols": 50}, "rows")

	var list struct {
		Sessions []struct {
			Session string `json:"session"`
			Rows    int    `json:"rows"`
			Cols    int    `json:"cols"`
			Exited  bool   `json:"exited"`
		} `json:"sessions"`
	}
	txt := s.ok(t, "session_list", map[string]any{}, &list)
	require.Len(t, list.Sessions, 1)
	require.Equal(t, st.Session, list.Sessions[0].Session)
	require.Equal(t, [2]int{10, 50}, [2]int{list.Sessions[0].Rows, list.Sessions[0].Cols})
	require.Contains(t, txt, st.Session+": pid ")
}
