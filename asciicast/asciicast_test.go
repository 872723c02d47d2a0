package asciicast_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
)

// TestMaxSizeIsTheTerminalBound: a recording may declare any size a
// session may have, and no larger.
func TestMaxSizeIsTheTerminalBound(t *testing.T) {
	require.Equal(t, ptywright.MaxSizeCells, asciicast.MaxSize)
}

// TestParseResizeNamesTheField: the messages read as the root's size
// errors do, which recordings' error texts have always quoted.
func TestParseResizeNamesTheField(t *testing.T) {
	rows, cols, err := asciicast.ParseResize("80x24")
	require.NoError(t, err)
	require.Equal(t, [2]int{24, 80}, [2]int{rows, cols})
	_, _, err = asciicast.ParseResize("80by24")
	require.EqualError(t, err, `resize: "80by24" is not COLSxROWS`)
	_, _, err = asciicast.ParseResize("80x0")
	require.EqualError(t, err, "rows: must be between 1 and 10000, got 0")
	_, _, err = asciicast.ParseResize("10001x24")
	require.EqualError(t, err, "cols: must be between 1 and 10000, got 10001")
	require.EqualError(t, ptywright.Size{Rows: 0, Cols: 80}.Validate(), "rows: must be between 1 and 10000, got 0")
}
