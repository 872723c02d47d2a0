package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

// checkLines asserts that Lines says what Line says row by row, and that
// plain is those rows joined with the trailing empty ones left out.
func checkLines(t *testing.T, e Engine, rows int, at string) {
	t.Helper()
	lines, plain := e.Lines()
	require.Len(t, lines, rows, at)
	for r := range rows {
		require.Equal(t, e.Line(r), lines[r], "%s: row %d", at, r)
	}
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	require.Equal(t, strings.Join(lines[:end], "\n"), plain, at)
}

// TestLinesMatchLine checks VTCore's one-buffer Lines (which reads only
// the written part of each row) against Line on random output, resizes
// included, and on Claude-like redraws of wide and narrow screens.
func TestLinesMatchLine(t *testing.T) {
	randomScreens(0x11e5, func(e *VTCore, rows, _ int, where string) { checkLines(t, e, rows, where) })
	x := NewXVT(5, 20, nil)
	x.Write([]byte("one\r\n\r\n  three  \r\n\x1b[31mfour\x1b[0m"))
	checkLines(t, x, 5, "x/vt")
	x.Close()
	for _, size := range [][2]int{{24, 80}, {60, 200}} {
		e := NewVTCore(size[0], size[1], nil)
		data := workload.ClaudeRedraws(256<<10, size[0], size[1])
		for off := 0; off < len(data); off += 4096 {
			e.Write(data[off:min(off+4096, len(data))])
			checkLines(t, e, size[0], "claude")
		}
	}
}

// randomScreens writes random output (seqGen's, with resizes between
// segments) to VTCores of random sizes, 400 of them (100 under the race
// detector), and calls check after each segment with the size and where
// it is.
func randomScreens(salt uint64, check func(e *VTCore, rows, cols int, where string)) {
	cases := 400
	if raceEnabled {
		cases = 100
	}
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, salt))
		rows, cols := 1+rng.IntN(30), 1+rng.IntN(100)
		g := &seqGen{rng: rng, rows: rows, cols: cols, noCPR: true}
		e := NewVTCore(rows, cols, nil)
		for seg := range 1 + rng.IntN(4) {
			if seg > 0 && rng.IntN(2) == 0 {
				rows, cols = 1+rng.IntN(30), 1+rng.IntN(100)
				g.rows, g.cols = rows, cols
				e.Resize(rows, cols)
			}
			e.Write([]byte(g.generate(1 + rng.IntN(200))))
			check(e, rows, cols, fmt.Sprintf("seed %d segment %d", seed, seg))
		}
		e.Close()
	}
}
