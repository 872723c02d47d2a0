package vtcore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHistoryTakeMatchesCopy: scrolling rows into the history as they are
// (take) leaves the screen and the history exactly as copying them did:
// the same cells (text, width, style) everywhere, through a ring that
// wraps, the cell budget dropping rows, long rows followed by short ones in
// recycled slots, wide characters and clusters, a coloured background
// erasing (BCE), SU, erase in line, ED 3, and resizes that pull rows back.
func TestHistoryTakeMatchesCopy(t *testing.T) {
	pieces := []string{
		"\r\n", "\r\n", "\r\n", "\n", "\x1b[S", "\x1b[3S", "\x1b[K", "\x1b[44m", "\x1b[0m", "\x1b[31;1m",
		"日本", "e\u0301", "👍🏽", "x", "abc def", "\x1b[3J", "\x1b[1;1H", "\x1b[99;1H",
	}
	for _, cols := range []int{10, 80} {
		rng := rand.New(rand.NewPCG(uint64(cols), 7))
		take, cp := New(4, cols, nil), New(4, cols, nil)
		take.SetScrollback(6)
		cp.SetScrollback(6)
		cp.hist.copyRows = true
		for step := range 3000 {
			var in string
			switch k := rng.IntN(10); {
			case k < 4:
				in = strings.Repeat("ab", rng.IntN(cols+2))
			case k == 4 && rng.IntN(50) == 0:
				rows, c := 2+rng.IntN(5), cols
				take.Resize(rows, c)
				cp.Resize(rows, c)
			default:
				in = pieces[rng.IntN(len(pieces))]
			}
			take.WriteString(in)
			cp.WriteString(in)
			requireSameTerminal(t, take, cp, fmt.Sprintf("%d columns, step %d (%q)", cols, step, in))
		}
	}
}

// requireSameTerminal compares two terminals' history and screen cell by
// cell, by what each cell shows. The property tests call it after every
// step, so it compares directly and describes the rows (cellsOf) only
// for the message of a difference.
func requireSameTerminal(t *testing.T, a, b *Terminal, msg string) {
	t.Helper()
	require.Equal(t, a.hist.len(), b.hist.len(), "history rows: %s", msg)
	for i := range a.hist.len() {
		if ra, rb := a.hist.at(i), b.hist.at(i); !sameCells(a, ra, b, rb) {
			require.Equal(t, cellsOf(a, ra), cellsOf(b, rb), "history row %d: %s", i, msg)
		}
	}
	rows, cols := a.Size()
	ra, rb := make([]Cell, cols), make([]Cell, cols)
	for r := range rows {
		for c := range cols {
			ra[c], rb[c] = a.Cell(r, c), b.Cell(r, c)
		}
		if !sameCells(a, ra, b, rb) {
			require.Equal(t, cellsOf(a, ra), cellsOf(b, rb), "screen row %d: %s", r, msg)
		}
	}
}

// sameCells reports whether rows ra (of a) and rb (of b) show the same:
// cellsOf's terms without building its strings.
func sameCells(a *Terminal, ra []Cell, b *Terminal, rb []Cell) bool {
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if ra[i].Width() != rb[i].Width() || ra[i].Style != rb[i].Style || a.Text(ra[i]) != b.Text(rb[i]) {
			return false
		}
	}
	return true
}

// cellsOf describes cells by what they show, not by cluster indices.
func cellsOf(t *Terminal, row []Cell) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = fmt.Sprintf("%q/%d/%v", t.Text(c), c.Width(), c.Style)
	}
	return out
}

// TestScrollScreenMatchesScrollUp: a line feed at the bottom of a
// full-screen region (scrollScreen) leaves the screen, the cursor and the
// history exactly as scrolling through scrollUp does, on random output
// with coloured backgrounds (BCE), wide characters, scroll regions and
// left-right margins (which take the general path), the alternate screen,
// resizes, and with and without a history.
func TestScrollScreenMatchesScrollUp(t *testing.T) {
	pieces := []string{
		"\r\n", "\n", "\n", "\x0b", "\x0c", "\x1bD", "\x1bE", "\x1b[S", "\x1b[44m", "\x1b[0m", "\x1b[31;1m", "\x1b[7m",
		"日本", "e\u0301", "👍🏽", "x", "abc def", "\x1b[K", "\x1b[1;1H", "\x1b[99;5H", "\x1b[2;3r", "\x1b[r",
		"\x1b[?69h\x1b[2;5s", "\x1b[?69l", "\x1b[?1049h", "\x1b[?1049l", "\x1b[3J", "\x1b[20C", "\x1b[?6h", "\x1b[?6l",
	}
	for _, hist := range []int{0, 5} {
		for _, cols := range []int{7, 80} {
			rng := rand.New(rand.NewPCG(uint64(cols+hist), 11))
			fast, slow := New(4, cols, nil), New(4, cols, nil)
			fast.SetScrollback(hist)
			slow.SetScrollback(hist)
			slow.generalIndex = true
			for step := range 2000 {
				var in string
				switch k := rng.IntN(12); {
				case k < 3:
					in = strings.Repeat("ab", rng.IntN(cols+2))
				case k == 3 && rng.IntN(40) == 0:
					rows, c := 1+rng.IntN(6), max(1, cols+rng.IntN(5)-2)
					fast.Resize(rows, c)
					slow.Resize(rows, c)
				default:
					in = pieces[rng.IntN(len(pieces))]
				}
				fast.WriteString(in)
				slow.WriteString(in)
				msg := fmt.Sprintf("scrollback %d, %d columns, step %d (%q)", hist, cols, step, in)
				if d := diffTerminals(fast, slow); d != "" {
					t.Fatalf("%s: %s", msg, d)
				}
				if step%8 == 0 {
					requireSameTerminal(t, fast, slow, msg) // cell by cell, the history's too
					checkRowsUsed(t, fast)
				}
			}
		}
	}
}
