package ptywright_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestEngineSelectable: a session runs on x/vt when asked, answering the
// program's queries and keeping a scrollback, and an unknown engine is a
// typed error before anything starts.
func TestEngineSelectable(t *testing.T) {
	for _, engine := range []ptywright.Engine{"", ptywright.EngineVTCore, ptywright.EngineXVT} {
		t.Run(string(engine), func(t *testing.T) {
			s := start(t, ptywright.Options{
				Program: "bash", Args: []string{"--norc", "--noprofile", "-c", `stty -echo; seq 1 30; printf '\033[31mred\033[0m \033[6n'; read -r -d R _; printf '\\ndone'; sleep 30`},
				Size: ptywright.Size{Rows: 5, Cols: 20}, Scrollback: 10, Engine: engine,
			})
			// "done" needs the cursor report: the engine answered it.
			res := waitFor(t, s, ptywright.ContainsText("done"))
			require.Contains(t, res.Snapshot.PlainText, "red")
			snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true, Scrollback: true})
			// The newest 10 rows that scrolled off, in order, end right above
			// the screen's first row.
			require.Len(t, snap.Scrollback, 10)
			first, err := strconv.Atoi(snap.Lines()[0])
			require.NoError(t, err, "screen:\n%s", snap.PlainText)
			for i, row := range snap.Scrollback {
				require.Equal(t, strconv.Itoa(first-10+i), row)
			}
			var red ptywright.Cell
			for _, c := range snap.Cells {
				if c.Text == "r" {
					red = c
					break
				}
			}
			require.Equal(t, "idx:1", red.Style.Foreground)
		})
	}

	_, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Engine: "xterm"})
	require.ErrorIs(t, err, ptywright.ErrInvalidEngine)
	var fe *ptywright.FieldError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "engine", fe.Field)
	_, err = ptywright.NewScreenWith(ptywright.ScreenOptions{Engine: "bogus"})
	require.ErrorIs(t, err, ptywright.ErrInvalidEngine)
}
