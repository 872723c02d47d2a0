package claudecode_test

import (
	"os"
	"path/filepath"
	"testing"

	"ptywright/internal/tuitest"
)

// BenchmarkClassifyExplain classifies a real Claude Code screen through
// the claude-code plugin with and without an explanation: asking costs
// the plugin's considered list, its region and their decoding; not asking
// costs nothing (compare allocs/op of the two). The screen is a permission
// dialog, which the plugin reaches after trying 20 other rules.
func BenchmarkClassifyExplain(b *testing.B) {
	const name = "waiting_for_permission_bash_24x80"
	text, err := os.ReadFile(filepath.Join(claudeFixtureDir, name+".txt"))
	if err != nil {
		b.Fatal(err)
	}
	tuitest.BenchClassifyExplain(b, newClaudeExtension(b), classifyContext(fixtureSnapshot(name, string(text)), nil, 5000))
}
