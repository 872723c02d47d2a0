package engine

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// sizeInName reads the RxC (rows x cols) suffix of a capture's file name.
var sizeInName = regexp.MustCompile(`_(\d+)x(\d+)\.[a-z]+$`)

func streamSize(t *testing.T, path string) (rows, cols int) {
	t.Helper()
	m := sizeInName.FindStringSubmatch(path)
	require.NotNil(t, m, "%s: no _ROWSxCOLS suffix", path)
	rows, _ = strconv.Atoi(m[1])
	cols, _ = strconv.Atoi(m[2])
	return rows, cols
}

// randomChunks splits b at random points, some inside escape sequences and
// UTF-8 characters.
func randomChunks(rng *rand.Rand, b []byte) [][]byte {
	return randomChunksUpTo(rng, b, 512)
}

func randomChunksUpTo(rng *rand.Rand, b []byte, most int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := 1 + rng.IntN(min(len(b), 1+rng.IntN(most)))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// diffFile runs one capture through both engines whole, then in random
// chunks (small ones too, so a stream that meets a deliberate difference is
// still compared up to it), and returns the share of bytes compared.
func diffFile(t *testing.T, path string, data []byte, checks int, chunkSizes ...int) float64 {
	rows, cols := streamSize(t, path)
	name := filepath.Base(path)
	runDiff(t, name, rows, cols, checks, [][]byte{data})
	rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
	compared, total := 0, 0
	for _, most := range chunkSizes {
		compared += runDiff(t, name+" (chunked)", rows, cols, checks, randomChunksUpTo(rng, data, most))
		total += len(data)
	}
	return float64(compared) / float64(total)
}

// captureChecks is how often a capture's chunked feed compares the
// engines: 162 captures of about 4 KB each, so 16 checkpoints (and the
// end) find a difference within a few rows of where it starts, at a
// quarter of the cost of 64 (the comparison is most of it).
const captureChecks = 16

// TestEngineDiffClaudeCodeCaptures compares the engines on every Claude Code
// screen capture (tmux capture-pane -e: SGR and text, one line per row), fed
// as captured and with CRLF line ends.
func TestEngineDiffClaudeCodeCaptures(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/fixtures/claude_code/*.ansi")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.Equal(t, 1.0, diffFile(t, path, data, captureChecks, 512, 32))
			require.Equal(t, 1.0, diffFile(t, path, bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), captureChecks, 512, 32))
		})
	}
}

// TestEngineDiffProgramStreams compares the engines on raw output recorded
// from real programs (vim, less, top, bash, ls...; see
// TestRecordProgramStreams).
func TestEngineDiffProgramStreams(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/streams/*.raw")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			share := diffFile(t, path, data, 64, 512, 512, 64, 8)
			t.Logf("%s: %.0f%% of the stream compared", filepath.Base(path), 100*share)
			// A stream may meet a deliberate difference (a wide character
			// ending on the last column...), and is compared up to it.
			require.Greater(t, share, 0.25, "too little of the stream compared")
		})
	}
}
