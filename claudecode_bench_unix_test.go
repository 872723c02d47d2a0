//go:build unix

package ptywright_test

import (
	"context"
	"testing"
)

// BenchmarkClassifyClaudeCode classifies the largest Claude Code capture.
// Besides wall time per call it reports the process CPU per call, which a
// loaded machine does not inflate.
func BenchmarkClassifyClaudeCode(b *testing.B) {
	var largest claudeFixture
	for _, fx := range loadClaudeFixtures(b) {
		if len(fx.Screen.PlainText) > len(largest.Screen.PlainText) {
			largest = fx
		}
	}
	ext := newClaudeExtension(b)
	cc := classifyContext(largest.Screen, nil, 5000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for b.Loop() {
		if _, err := ext.Classify(ctx, cc); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime(b) - cpu0
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/classify")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/classify")
	b.ReportMetric(float64(len(largest.Screen.PlainText)), "screen-bytes")
}
