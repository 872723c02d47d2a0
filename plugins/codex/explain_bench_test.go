package codex_test

import (
	"os"
	"path/filepath"
	"testing"

	"ptywright/internal/tuitest"
)

// BenchmarkClassifyExplain classifies a real Codex screen through the
// codex plugin with and without an explanation: asking costs the plugin's
// considered list, its region and their decoding; not asking costs
// nothing (compare allocs/op of the two). The Claude Code counterpart is
// in plugins/claude-code.
func BenchmarkClassifyExplain(b *testing.B) {
	text, err := os.ReadFile(filepath.Join(codexFixtureDir, "working_40x120.txt"))
	if err != nil {
		b.Fatal(err)
	}
	tuitest.BenchClassifyExplain(b, codexExtension(b), codexFixtureContext(string(text), 120, codexExpected{}))
}
