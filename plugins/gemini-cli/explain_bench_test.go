package geminicli_test

import (
	"os"
	"path/filepath"
	"testing"

	"ptywright/internal/tuitest"
)

// BenchmarkClassifyExplain classifies a real Gemini CLI screen (a turn
// streaming its answer) through the gemini-cli plugin with and without an
// explanation; not asking costs nothing (compare allocs/op of the two).
func BenchmarkClassifyExplain(b *testing.B) {
	text, err := os.ReadFile(filepath.Join(geminiFixtureDir, "streaming_40x120.txt"))
	if err != nil {
		b.Fatal(err)
	}
	tuitest.BenchClassifyExplain(b, geminiExtension(b), geminiFixtureContext(string(text), 120, geminiExpected{}))
}
