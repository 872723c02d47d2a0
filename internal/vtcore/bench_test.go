package vtcore_test

import (
	"fmt"
	"strings"
	"testing"

	"ptywright/internal/vtcore"
	"ptywright/internal/workload"
)

// BenchmarkWrite measures the emulator alone on scrolling text, a redrawn
// full-screen program, wide text and Claude Code's redraws, without a
// scrollback and with a Session's default one. MB/cpu-s is the figure to
// compare on a loaded machine.
func BenchmarkWrite(b *testing.B) {
	var plain, wide strings.Builder
	for i := 0; plain.Len() < 256<<10; i++ {
		fmt.Fprintf(&plain, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	mixed := string(workload.MixedRedraws(256<<10, 24))
	for i := 0; wide.Len() < 256<<10; i++ {
		fmt.Fprintf(&wide, "%d 中文字符 ─── résumé 🙂 │ ✓ done\r\n", i)
	}
	for _, in := range []struct {
		name string
		data func(rows, cols int) string
	}{
		{"plain", func(int, int) string { return plain.String() }},
		{"mixed", func(int, int) string { return mixed }},
		{"wide", func(int, int) string { return wide.String() }},
		{"claude", func(rows, cols int) string { return string(workload.ClaudeRedraws(256<<10, rows, cols)) }},
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
