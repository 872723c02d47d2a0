package vtcore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/vtcore"
)

func scrollback(term *vtcore.Terminal) []string {
	out := []string{}
	for i := range term.ScrollbackLen() {
		out = append(out, string(term.AppendScrollbackText(nil, i)))
	}
	return out
}

func TestScrollback(t *testing.T) {
	newTerm := func() *vtcore.Terminal {
		term := vtcore.New(2, 10, nil)
		term.SetScrollback(3)
		return term
	}
	term := newTerm()
	term.WriteString("1\r\n2\r\n3\r\n4")
	require.Equal(t, []string{"1", "2"}, scrollback(term), "line feeds at the bottom")
	require.Equal(t, []string{"3", "4"}, lines(term))
	term.WriteString("\r\n5\r\n6\x1b[S")
	require.Equal(t, []string{"3", "4", "5"}, scrollback(term), "bounded, and SU scrolls into it too")
	term.WriteString("\x1b[3J")
	require.Equal(t, []string{}, scrollback(term), "ED 3 erases it")
	require.Equal(t, []string{"6"}, lines(term), "ED 3 leaves the screen")

	// A region that does not start at the top, and the alternate screen,
	// scroll nothing into it.
	term = vtcore.New(3, 10, nil)
	term.SetScrollback(10)
	term.WriteString("a\x1b[2;3r\x1b[3;1Hb\r\nc\r\nd\x1b[r")
	require.Equal(t, []string{}, scrollback(term))
	term.WriteString("\x1b[?1049h\x1b[3;1Hx\r\ny\r\nz\x1b[?1049l")
	require.Equal(t, []string{}, scrollback(term))
	// A region at the top does (xterm).
	term.WriteString("\x1b[1;2r\x1b[2;1H\r\n\r\n\x1b[r")
	require.Equal(t, []string{"a", "c"}, scrollback(term))

	// Without SetScrollback, nothing is kept.
	term = vtcore.New(2, 10, nil)
	term.WriteString("1\r\n2\r\n3")
	require.Equal(t, 0, term.ScrollbackLen())
}

// TestScrollbackSteadyStateAllocatesNothing: once the scrollback is full,
// a scrolled row reuses the storage of the row it evicts (rows of up to 80
// cells, and short rows on a wide screen).
func TestScrollbackSteadyStateAllocatesNothing(t *testing.T) {
	for _, cols := range []int{80, 200} {
		term := vtcore.New(24, cols, nil)
		term.SetScrollback(100)
		line := []byte(strings.Repeat("x", min(cols, 80)-1) + "\r\n")
		for range 300 {
			term.Write(line)
		}
		allocs := testing.AllocsPerRun(200, func() { term.Write(line) })
		require.Zero(t, allocs, "%d columns", cols)
	}
}
