package vtcore_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

// TestAppendRowTextMatchesCells: a row's text is its cells' texts one
// after another, wide continuations left out, on random output of ASCII,
// box-drawing rules, wide, combining and four-byte characters, erasures
// and cursor moves.
func TestAppendRowTextMatchesCells(t *testing.T) {
	pieces := []string{"a", "word ", "─", "────────", "│", "╭──╮", "中文", "é", "e\u0301", "👍", "\U0001F468\u200D\U0001F469", "\u00a0",
		"\r\n", "\x1b[2K", "\x1b[3;5H", "\x1b[1;31m", "\x1b[0m", "\x1b[K", "\x1b[2D", "\b", "\t", "\uffff", "\u0800", "\ud7ff", "\ue000"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		rows, cols := 1+rng.IntN(12), 1+rng.IntN(40)
		term := vtcore.New(rows, cols, nil)
		var out strings.Builder
		for range rng.IntN(200) {
			out.WriteString(pieces[rng.IntN(len(pieces))])
		}
		term.Write([]byte(out.String()))
		for r := range rows {
			var want []byte
			for c := range cols {
				if cell := term.Cell(r, c); cell.Width() > 0 {
					want = append(want, term.Text(cell)...)
				}
			}
			require.Equal(t, string(want), string(term.AppendRowText(nil, r)), "row %d of %q", r, out.String())
		}
	}
}
