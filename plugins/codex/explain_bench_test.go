package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"ptywright"
)

// BenchmarkClassifyExplain classifies a real Codex screen through the codex
// plugin with and without an explanation: asking costs the plugin's
// considered list and its decoding; not asking costs nothing (compare
// allocs/op of the two).
func BenchmarkClassifyExplain(b *testing.B) {
	text, err := os.ReadFile(filepath.Join(codexFixtureDir, "working_40x120.txt"))
	if err != nil {
		b.Fatal(err)
	}
	cc := codexFixtureContext(string(text), 120, codexExpected{})
	ext := codexExtension(b)
	ctx := context.Background()
	b.Run("classify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ext.Classify(ctx, cc); err != nil {
				b.Fatal(err)
			}
		}
	})
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
