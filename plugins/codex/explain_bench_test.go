package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"ptywright"
)

// BenchmarkClassifyExplain classifies a real Codex screen and a real Claude
// Code screen through the built-in plugins with and without an
// explanation: asking costs the plugin's considered list, its region and
// their decoding; not asking costs nothing (compare allocs/op of the two).
// The Claude Code screen is a permission dialog, which the plugin reaches
// after trying 20 other rules.
func BenchmarkClassifyExplain(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, ext ptywright.Extension, cc ptywright.ClassifyContext) {
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
	b.Run("codex", func(b *testing.B) {
		text, err := os.ReadFile(filepath.Join(codexFixtureDir, "working_40x120.txt"))
		if err != nil {
			b.Fatal(err)
		}
		run(b, codexExtension(b), codexFixtureContext(string(text), 120, codexExpected{}))
	})
	b.Run("claude-code", func(b *testing.B) {
		const name = "waiting_for_permission_bash_24x80"
		text, err := os.ReadFile(filepath.Join(claudeFixtureDir, name+".txt"))
		if err != nil {
			b.Fatal(err)
		}
		run(b, newClaudeExtension(b), classifyContext(fixtureSnapshot(name, string(text)), nil, 5000))
	})
}
