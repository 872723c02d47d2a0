package vtcore_test

import (
	"fmt"
	"strings"
	"testing"

	"ptywright/internal/vtcore"
)

// claudeRedraws is the root package's BenchmarkEndToEnd workload of the
// same name (what Claude Code writes while it works): a line of output now
// and then above a prompt box that is erased line by line (ESC[2K ESC[1A)
// and redrawn in truecolour with box-drawing characters and a spinner.
func claudeRedraws(n, rows, cols int) string {
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
	return b.String()
}

// BenchmarkWrite measures the emulator alone on scrolling text, a redrawn
// full-screen program, wide text and Claude Code's redraws, without a
// scrollback and with a Session's default one. MB/cpu-s is the figure to
// compare on a loaded machine.
func BenchmarkWrite(b *testing.B) {
	var plain, mixed, wide strings.Builder
	for i := 0; plain.Len() < 256<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	for i := 0; mixed.Len() < 256<<10; i++ {
		fmt.Fprintf(&mixed, "\x1b[%d;1H\x1b[2K\x1b[1;3%dm%04d\x1b[0m \x1b[38;5;%dmstatus\x1b[0m \x1b[38;2;%d;100;200mrgb text\x1b[0m \x1b[7m[%d]\x1b[0m", i%24+1, i%8, i, i%256, i%256, i)
	}
	for i := 0; wide.Len() < 256<<10; i++ {
		fmt.Fprintf(&wide, "%d 中文字符 ─── résumé 🙂 │ ✓ done\r\n", i)
	}
	for _, in := range []struct {
		name string
		data func(rows, cols int) string
	}{
		{"plain", func(int, int) string { return plain.String() }},
		{"mixed", func(int, int) string { return mixed.String() }},
		{"wide", func(int, int) string { return wide.String() }},
		{"claude", func(rows, cols int) string { return claudeRedraws(256<<10, rows, cols) }},
	} {
		for _, size := range [][2]int{{24, 80}, {60, 200}} {
			for _, hist := range []int{0, 3000} {
				b.Run(fmt.Sprintf("%s/%dx%d/scrollback=%d", in.name, size[1], size[0], hist), func(b *testing.B) {
					term := vtcore.New(size[0], size[1], nil)
					term.SetScrollback(hist) // 3000: a Session's default
					data := []byte(in.data(size[0], size[1]))
					b.SetBytes(int64(len(data)))
					c0 := cpuTime()
					for b.Loop() {
						for off := 0; off < len(data); off += 4096 {
							term.Write(data[off:min(off+4096, len(data))])
						}
					}
					// MB per CPU second: what the emulator costs, which the
					// shared machine's load moves less than the wall clock.
					if cpu := (cpuTime() - c0).Seconds(); cpu > 0 {
						b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu, "MB/cpu-s")
					}
				})
			}
		}
	}
}
