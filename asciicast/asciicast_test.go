package asciicast_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

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

func TestReadRejectsInvalidFiles(t *testing.T) {
	const header = `{"version": 2, "width": 80, "height": 24}` + "\n"
	for _, tc := range []struct {
		name, in    string
		line        int
		field, want string
	}{
		{"empty", "", 1, "header", "missing"},
		{"header not an object", "[1]\n", 1, "header", "not a JSON object"},
		{"no version", `{"width": 80, "height": 24}`, 1, "version", "missing"},
		{"version 1", `{"version": 1, "width": 80, "height": 24, "stdout": []}`, 1, "version", "1 is not supported"},
		{"version 3", `{"version": 3, "term": {"cols": 80, "rows": 24}}`, 1, "version", "3 is not supported"},
		{"no width", `{"version": 2, "height": 24}`, 1, "width", "missing"},
		{"zero height", `{"version": 2, "width": 80, "height": 0}`, 1, "height", "between 1 and"},
		{"width a string", `{"version": 2, "width": "80", "height": 24}`, 1, "width", "must be a JSON int"},
		{"env not strings", `{"version": 2, "width": 80, "height": 24, "env": {"TERM": 1}}`, 1, "env", "must be a JSON string"},
		{"event not an array", header + `{"t": 1}`, 2, "event", "not a JSON array"},
		{"event too short", header + `[1.0, "o"]`, 2, "event", "3 elements"},
		{"time a string", header + `["1.0", "o", "x"]`, 2, "event[0]", "number of seconds"},
		{"negative time", header + `[-1, "o", "x"]`, 2, "event[0]", ">= 0"},
		{"time goes back", header + `[2.5, "o", "x"]` + "\n" + `[1.5, "o", "y"]`, 3, "event[0]", "before the previous"},
		{"unknown code", header + `[1, "x", "y"]`, 2, "event[1]", `unknown event code "x"`},
		{"code a number", header + `[1, 5, "y"]`, 2, "event[1]", "must be a string"},
		{"data a number", header + `[1, "o", 5]`, 2, "event[2]", "must be a string"},
		{"bad resize", header + `[1, "r", "80 by 24"]`, 2, "event[2]", "COLSxROWS"},
		{"resize too big", header + `[1, "r", "80x0"]`, 2, "event[2]", "rows"},
		{"error after blank line", header + "\n" + `[1, "o", "x"]` + "\n\n" + `[0.5, "o", "y"]`, 5, "event[0]", "before the previous"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := asciicast.Read(strings.NewReader(tc.in))
			require.ErrorIs(t, err, asciicast.ErrInvalid)
			var re *asciicast.Error
			require.ErrorAs(t, err, &re)
			require.Equal(t, tc.line, re.Line, "line: %v", err)
			require.Equal(t, tc.field, re.Field, "field: %v", err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestRecordingWriteToReadsBack(t *testing.T) {
	rec := &asciicast.Recording{
		Header: asciicast.Header{Version: 2, Width: 100, Height: 30, Timestamp: 1700000000, Title: "demo <&>",
			Env: map[string]string{"TERM": "xterm-256color"}},
		Events: []asciicast.Event{
			{Time: 0, Type: asciicast.EventOutput, Data: "\x1b[1mhi\x1b[0m \"quoted\" \\ 中文 <&>\r\n"},
			{Time: 1500 * time.Microsecond, Type: asciicast.EventInput, Data: "ls\r"},
			{Time: 2 * time.Second, Type: asciicast.EventResize, Data: "120x40"},
			{Time: 2*time.Second + time.Microsecond, Type: asciicast.EventMarker, Data: "done"},
		},
	}
	var buf bytes.Buffer
	_, err := rec.WriteTo(&buf)
	require.NoError(t, err)
	require.Contains(t, buf.String(), `[0.001500, "i", "ls\r"]`, "times in seconds with microseconds")
	require.Contains(t, buf.String(), `<&>`, "no HTML escaping")
	back, err := asciicast.Read(&buf)
	require.NoError(t, err)
	require.Equal(t, rec, back)
	rows, cols := back.Size()
	require.Equal(t, [2]int{30, 100}, [2]int{rows, cols})
	require.Equal(t, 2*time.Second+time.Microsecond, back.Duration())
	require.Equal(t, int64(len(rec.Events[0].Data)), back.OutputBytes())
}
