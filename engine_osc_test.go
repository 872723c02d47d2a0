package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestScreenUTF8InOSC checks that UTF-8 inside an OSC string neither ends
// the string early nor reaches the grid: x/ansi reads the byte 0x9C as the
// C1 String Terminator, and "✳" (E2 9C B3), which Claude Code puts in its
// window title on every spinner tick, contains it.
func TestScreenUTF8InOSC(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantText  string
		wantTitle string
	}{
		{"plain text", "hello", "hello", ""},
		{"ASCII title with BEL", "\x1b]0;my title\x07ab", "ab", "my title"},
		{"ASCII title with ESC backslash", "\x1b]2;t2\x1b\\ab", "ab", "t2"},
		{"title with a 0x9C byte, BEL", "\x1b]0;✳ Claude Code\x07ab", "ab", "✳ Claude Code"},
		{"title with a 0x9C byte, ESC backslash", "\x1b]2;✻ Claude Code\x1b\\ab", "ab", "✻ Claude Code"},
		{"UTF-8 title without C1 bytes", "\x1b]0;◐ Claude Code\x07ab", "ab", "◐ Claude Code"},
		{"other OSC with a 0x9C byte is dropped", "\x1b]8;;https://x/✳\x07link\x1b]8;;\x07", "link", ""},
		{"CSI sequences pass", "\x1b[31mred\x1b[0m \x1b[2Cx", "red   x", ""},
		{"text around a title", "a\x1b]0;✳ t\x07b", "ab", "✳ t"},
		{"glyphs in text stay", "✳ ✻ ✶", "✳ ✻ ✶", ""},
		// As in x/ansi's table: an ESC ends the string (dispatching it) and
		// starts the next sequence.
		{"ESC ends an OSC", "\x1b]0;✳ x\x1b[31mz", "z", "✳ x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every way of splitting the input over two writes must give
			// the same screen.
			for cut := 0; cut <= len(tt.input); cut++ {
				s, err := ptywright.NewScreen(ptywright.Size{Rows: 3, Cols: 40})
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				_, _ = s.Write([]byte(tt.input[:cut]))
				_, _ = s.Write([]byte(tt.input[cut:]))
				snap := s.Snapshot(false)
				require.Equal(t, tt.wantText, snap.PlainText, "split at %d", cut)
				require.Equal(t, tt.wantTitle, snap.Title, "split at %d", cut)
			}
		})
	}
}
