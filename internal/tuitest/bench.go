package tuitest

import (
	"context"
	"testing"
	"time"

	"ptywright"
)

// BenchClassify measures ext's classifier on one screen, reporting
// allocations and µs/call.
func BenchClassify(b *testing.B, ext ptywright.Extension, cc ptywright.ClassifyContext) {
	ctx := context.Background()
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if _, err := ext.Classify(ctx, cc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/call")
}

// BenchClassifyExplain runs two sub-benchmarks on one screen: classify,
// and classify with an explanation (ext must be a ptywright.Explainer), so
// their allocs/op compare what asking for an explanation costs.
func BenchClassifyExplain(b *testing.B, ext ptywright.Extension, cc ptywright.ClassifyContext) {
	ctx := context.Background()
	b.Run("classify", func(b *testing.B) { BenchClassify(b, ext, cc) })
	b.Run("explain", func(b *testing.B) {
		b.ReportAllocs()
		e := ext.(ptywright.Explainer)
		for b.Loop() {
			if _, _, err := e.ClassifyExplained(ctx, cc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
