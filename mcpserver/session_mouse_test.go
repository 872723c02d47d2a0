//go:build unix

package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// session_mouse clicks where a text is, in the form the program asked for,
// and refuses a program that asked for no mouse reports.
func TestSessionMouse(t *testing.T) {
	s := serve(t, Options{}, nil)
	var st startOut
	s.ok(t, "session_start", map[string]any{"program": "sh", "args": []string{"-c", `stty -icanon -echo min 9; printf '\033[?1000;1006h[ OK ]\n'; head -c 9 | cat -v; echo; sleep 30`}}, &st)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "OK"}, &w)
	require.True(t, w.Matched)
	txt := s.ok(t, "session_mouse", map[string]any{"session": st.Session, "kind": "press", "text": "OK", "mods": []string{"shift"}}, nil)
	require.Contains(t, txt, "Mouse press at row 0 col 2 of "+st.Session)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "^[[<4;3;1M", "timeout_ms": 3000}, &w)
	require.True(t, w.Matched, w.Screen)

	plain := s.startShell(t)
	s.fails(t, "session_mouse", map[string]any{"session": plain.Session, "kind": "click"}, "nothing sent: ptywright: the program has not enabled mouse reporting")
	s.fails(t, "session_mouse", map[string]any{"session": plain.Session, "kind": "click", "mods": []string{"meta"}}, `mods[0]: unknown modifier "meta"`)
}
