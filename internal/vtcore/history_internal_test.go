package vtcore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func rowOf(s string, cols int) []Cell {
	row := make([]Cell, cols)
	for i, r := range s {
		row[i] = Cell{content: int32(r)}
	}
	return row
}

func historyText(h *history) []string {
	var out []string
	for i := range h.len() {
		var b []rune
		for _, c := range h.at(i) {
			b = append(b, rune(c.content))
		}
		out = append(out, string(b))
	}
	return out
}

func TestHistoryRing(t *testing.T) {
	var h history
	h.push(rowOf("dropped", 10)) // limit 0 keeps nothing
	require.Equal(t, 0, h.len())
	h.setLimit(3)
	for i := range 5 {
		h.push(rowOf(fmt.Sprint(i), 10))
	}
	require.Equal(t, []string{"2", "3", "4"}, historyText(&h), "the oldest rows go first")
	require.Len(t, h.at(0), 1, "trailing blanks are not stored")

	// pop returns the newest at the screen's width; a later push reuses
	// the freed slot in order.
	line := h.pop(4)
	require.Len(t, line, 4)
	require.Equal(t, '4', rune(line[0].content))
	h.push(rowOf("5", 10))
	h.push(rowOf("6", 10))
	require.Equal(t, []string{"3", "5", "6"}, historyText(&h))

	h.setLimit(2)
	require.Equal(t, []string{"5", "6"}, historyText(&h))
	h.clear()
	require.Equal(t, 0, h.len())
	require.Nil(t, h.pop(4))
}

func TestHistoryCellBudget(t *testing.T) {
	var h history
	h.setLimit(4) // 4*cellsPerRow cells
	wide := make([]Cell, 2*cellsPerRow)
	for i := range wide {
		wide[i] = Cell{content: 'x'}
	}
	for range 10 {
		h.push(wide)
	}
	require.Equal(t, 2, h.len(), "full rows twice the average width: half the rows")
	require.LessOrEqual(t, h.cells, 4*cellsPerRow)
	h.push(rowOf("short", 10))
	require.Equal(t, 2, h.len())
	require.Equal(t, "short", historyText(&h)[1])
}

func TestHistoryPopCutsWideCharacterAtEdge(t *testing.T) {
	var h history
	h.setLimit(2)
	row := rowOf("ab", 4)
	row[2] = Cell{content: '中', width: 1}
	row[3] = continuation
	h.push(row)
	line := h.pop(3)
	require.Equal(t, Cell{}, line[2], "a wide character cut by the edge is blanked")
}
