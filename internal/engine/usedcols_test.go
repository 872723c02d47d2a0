package engine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// usedColsByCell is how the root's Screen found a row's used columns
// before UsedCols: every cell through Cell, from the right.
func usedColsByCell(e Engine, row, cols int) int {
	for c := cols - 1; c >= 0; c-- {
		ec := e.Cell(row, c)
		if ec.Width == 0 {
			continue
		}
		if ec.Text != "" && ec.Text != " " {
			return c + ec.Width
		}
	}
	return 0
}

func checkUsedCols(t *testing.T, e Engine, rows, cols int, at string) {
	t.Helper()
	for r := range rows {
		require.Equal(t, usedColsByCell(e, r, cols), e.UsedCols(r), "%s: row %d", at, r)
	}
}

// TestUsedColsMatchesCells holds VTCore's UsedCols, which reads the cells
// in place, to the cell-by-cell reading through Cell, on random output
// (wide and combined characters, erases in colour, overwritten halves of
// wide characters, resizes) and on hand-picked rows; x/vt's too.
func TestUsedColsMatchesCells(t *testing.T) {
	randomScreens(0x05ed, func(e *VTCore, rows, cols int, where string) { checkUsedCols(t, e, rows, cols, where) })
	rows := []string{
		"", "$ ", "abc   ", "\x1b[41m   \x1b[0m", "x\x1b[42m\x1b[K", "界", "ab界", "1234567界", "12345678界",
		"e\u0301", "👍🏽", "界\x1b[1D\x1b[1Dx", "界\x1b[1Dy", "\x1b[5Cz", "\x1b[9C界",
	}
	for _, newEngine := range []func() Engine{
		func() Engine { return NewVTCore(len(rows), 10, nil) },
		func() Engine { return NewXVT(len(rows), 10, nil) },
	} {
		e := newEngine()
		for i, r := range rows {
			e.Write(fmt.Appendf(nil, "\x1b[%d;1H%s", i+1, r))
		}
		checkUsedCols(t, e, len(rows), 10, fmt.Sprintf("%T", e))
		e.Close()
	}
}
