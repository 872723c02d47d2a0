package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestRedactSnapshotCellsAreItsOwn: the snapshot RedactSnapshot returns
// (with the default policy) has cells of its own, whether or not the
// screen shows a secret, as it did before the grid was cloned only for a
// secret (b9d8c07): a caller that marks up the redacted cells (a cursor,
// a highlight) leaves the raw snapshot it still holds as it was. Fails on
// a screen with no secret, whose redacted cells are the raw ones.
func TestRedactSnapshotCellsAreItsOwn(t *testing.T) {
	for _, text := range []string{"no secret here", "key sk-ant-api03-AbCdEf0123456789xyzXYZ"} {
		screen, err := ptywright.NewScreen(ptywright.Size{Rows: 4, Cols: 60})
		require.NoError(t, err)
		_, err = screen.Write([]byte(text))
		require.NoError(t, err)
		raw := screen.Snapshot(true)
		red := ptywright.RedactSnapshot(raw, nil)
		red.Cells[0].Text = "#"
		require.Equal(t, string(text[0]), raw.Cells[0].Text, "%q: the raw snapshot's cells changed with the redacted ones", text)
	}
}
