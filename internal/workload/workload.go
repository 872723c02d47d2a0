// Package workload generates the deterministic terminal output the
// benchmarks feed through the emulator and the whole library, so that
// the emulator's own benchmark and the end-to-end one measure the same
// bytes.
package workload

import (
	"fmt"
	"strings"
)

// ClaudeRedraws is what Claude Code writes while it works: a line of
// output now and then above a prompt box that is erased line by line
// (ESC[2K ESC[1A) and redrawn in truecolour with box-drawing characters
// and a spinner, frame after frame, until at least n bytes for a screen
// of rows x cols.
func ClaudeRedraws(n, rows, cols int) []byte {
	var b strings.Builder
	spin := []string{"·", "✢", "✳", "✶", "✻", "✽"}
	box := min(rows-2, 8)
	width := cols - 2
	rule := strings.Repeat("─", width)
	drawn := 0
	for i := 0; b.Len() < n; i++ {
		for range drawn {
			b.WriteString("\x1b[2K\x1b[1A")
		}
		b.WriteString("\x1b[2K\x1b[G")
		if i%3 == 0 {
			fmt.Fprintf(&b, "\x1b[38;2;215;119;87m⏺\x1b[39m Read \x1b[1mfile_%05d.go\x1b[22m (%d lines)\r\n", i, i%400)
		}
		fmt.Fprintf(&b, "\x1b[38;2;215;119;87m%s\x1b[39m \x1b[38;2;215;119;87mThinking…\x1b[39m \x1b[2m(%ds · ↓ %d tokens · esc to interrupt)\x1b[22m\r\n", spin[i%len(spin)], i/10, i*7)
		fmt.Fprintf(&b, "\x1b[38;2;136;136;136m╭%s╮\x1b[39m\r\n", rule)
		for j := range box - 3 {
			text := fmt.Sprintf(" > prompt line %d of frame %d", j, i)
			fmt.Fprintf(&b, "\x1b[38;2;136;136;136m│\x1b[39m%s%s\x1b[38;2;136;136;136m│\x1b[39m\r\n", text, strings.Repeat(" ", max(0, width-len(text))))
		}
		fmt.Fprintf(&b, "\x1b[38;2;136;136;136m╰%s╯\x1b[39m\r\n", rule)
		b.WriteString("  \x1b[2m? for shortcuts\x1b[22m")
		drawn = box
	}
	return []byte(b.String())
}

// MixedRedraws is what full-screen programs write: cursor moves, SGR
// colours (basic, 256 and direct), erases, on a screen of rows that is
// redrawn rather than scrolled, until at least n bytes.
func MixedRedraws(n, rows int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K\x1b[1;3%dm%04d\x1b[0m \x1b[38;5;%dmstatus\x1b[0m \x1b[38;2;%d;100;200mrgb text\x1b[0m \x1b[7m[%d]\x1b[0m", i%rows+1, i%8, i, i%256, i%256, i)
	}
	return []byte(b.String())
}
