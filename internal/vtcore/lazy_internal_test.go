package vtcore

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// allocatedRows counts the rows of both screens whose cells exist.
func allocatedRows(term *Terminal) int {
	n := 0
	for _, s := range term.scrs {
		for _, line := range s.lines {
			if line != nil {
				n++
			}
		}
	}
	return n
}

// TestRowsAreAllocatedWhenWritten: a terminal nothing was written to holds
// row headers and no cells; blanks erased onto blank rows allocate none;
// text allocates the rows it lands on. Rows never written read as blanks.
func TestRowsAreAllocatedWhenWritten(t *testing.T) {
	term := New(24, 80, nil)
	require.Zero(t, allocatedRows(term))
	term.Write([]byte("\x1b[2J\x1b[3;5H\x1b[K\x1b[1K\x1b[2K\x1b[J\x1b[1J\x1b[5X\x1b[2P\x1b[?1049h\x1b[2J\x1b[?1049l"))
	require.Zero(t, allocatedRows(term), "erasing blanks over blank rows")
	term.Write([]byte("\x1b[5;1Hhello"))
	require.Equal(t, 1, allocatedRows(term))
	require.Equal(t, "hello", string(term.AppendRowTextTrimmed(nil, 4)))
	require.Equal(t, strings.Repeat(" ", 80), string(term.AppendRowText(nil, 0)))
	require.Equal(t, Cell{}, term.Cell(0, 0))
	term.Write([]byte("\x1b[41m\x1b[1;1H\x1b[K")) // an erasure in a colour is written
	require.Equal(t, 2, allocatedRows(term))
	require.Equal(t, IndexedColor(1), term.Cell(0, 79).Style.Bg)
}

// TestNewTerminalIsSmall: a new 80x24 terminal holds its row headers and
// its state, not its cells, the parser's 64 KiB string buffer or the
// memos it fills as output comes (before: about 180 KB each).
func TestNewTerminalIsSmall(t *testing.T) {
	const n = 100
	terms := make([]*Terminal, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range terms {
		terms[i] = New(24, 80, nil)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("%d B per new 80x24 terminal", per)
	require.Less(t, per, int64(8<<10))
	runtime.KeepAlive(terms)
}
