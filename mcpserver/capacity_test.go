//go:build unix

package mcpserver

import (
	"testing"
)

// TestStartsRefusedPastTheCaps: past MaxSessions session_start fails with
// a tool error that names the limit, the running session goes on, and
// closing it frees its slot; a size over the cell budget is refused.
func TestStartsRefusedPastTheCaps(t *testing.T) {
	s := serve(t, Options{MaxSessions: 1}, nil)
	first := s.startShell(t)
	s.fails(t, "session_start", map[string]any{"program": "/bin/sh"}, "at capacity: 1 of 1 sessions in use")
	s.ok(t, "session_send", map[string]any{"session": first.Session, "text": "echo still-$((40+2))\r"}, nil)
	s.ok(t, "session_wait", map[string]any{"session": first.Session, "text": "still-42"}, nil)
	s.ok(t, "session_close", map[string]any{"session": first.Session}, nil)
	s.fails(t, "session_start", map[string]any{"program": "/bin/sh", "rows": 2000, "cols": 1000}, "over the budget of 1000000 cells")
	s.startShell(t)
}
