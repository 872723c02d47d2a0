//go:build unix

package claudecode_test

import (
	"context"
	"testing"

	"ptywright/internal/tuitest"
)

// BenchmarkClassifyClaudeCode classifies the largest Claude Code capture
// and a typical one (a completed turn at the prompt). Besides wall time per
// call it reports the process CPU per call, which a loaded machine does not
// inflate.
func BenchmarkClassifyClaudeCode(b *testing.B) {
	var largest, typical claudeFixture
	for _, fx := range loadClaudeFixtures(b) {
		if len(fx.Screen.PlainText) > len(largest.Screen.PlainText) {
			largest = fx
		}
		if fx.Name == "completed_turn_hello_24x80" {
			typical = fx
		}
	}
	for _, bc := range []struct {
		name string
		fx   claudeFixture
	}{{"largest", largest}, {"typical", typical}} {
		b.Run(bc.name, func(b *testing.B) {
			ext := newClaudeExtension(b)
			cc := classifyContext(bc.fx.Screen, nil, 5000)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := tuitest.CPUTime(b)
			for b.Loop() {
				if _, err := ext.Classify(ctx, cc); err != nil {
					b.Fatal(err)
				}
			}
			cpu := tuitest.CPUTime(b) - cpu0
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/classify")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/classify")
			b.ReportMetric(float64(len(bc.fx.Screen.PlainText)), "screen-bytes")
		})
	}
}
