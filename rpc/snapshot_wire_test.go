package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestWireSnapshotEncodesAsMarshalJSON: the wait results' snapshot, encoded
// as a plain struct, is the JSON ScreenSnapshot.MarshalJSON gives, member
// for member, whatever the snapshot holds; only the escaping of <, > and &
// differs (MarshalJSON's json.Marshal escapes them; responses do not).
func TestWireSnapshotEncodesAsMarshalJSON(t *testing.T) {
	live := func(withCells bool, out string) ptywright.ScreenSnapshot {
		scr, err := ptywright.NewScreen(ptywright.Size{Rows: 4, Cols: 20})
		require.NoError(t, err)
		defer func() { _ = scr.Close() }() // Best effort: the screen is done.
		_, _ = scr.Write([]byte(out))
		return scr.Snapshot(withCells)
	}
	full := live(true, "\x1b]2;a <title> & more\x07\x1b[?1049h\x1b[?1h\x1b[?2004h\x1b[1;31mred\x1b[0m 界 <b>&amp;\r\nrow two\u2028")
	full.Scrollback = []string{"gone <up>", ""}
	require.NotEmpty(t, full.Cells)
	require.NotEmpty(t, full.Title)
	cases := map[string]ptywright.ScreenSnapshot{
		"zero":       {},
		"plain":      live(false, "$ echo hi\r\nhi\r\n$ "),
		"full":       full,
		"nil cells":  {PlainText: "x", Cells: nil, Title: "t"},
		"scrollback": {Scrollback: []string{}, Size: ptywright.Size{Rows: 1, Cols: 2, PixelWidth: 3, PixelHeight: 4}},
	}
	unescape := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	for name, snap := range cases {
		t.Run(name, func(t *testing.T) {
			slow, err := json.Marshal(snap)
			require.NoError(t, err)
			fast, err := marshal(toWireSnapshot(snap))
			require.NoError(t, err)
			require.Equal(t, unescape.Replace(string(slow)), string(fast))
			var a, b any
			require.NoError(t, json.Unmarshal(slow, &a))
			require.NoError(t, json.Unmarshal(fast, &b))
			require.Equal(t, a, b)
			var back ptywright.ScreenSnapshot
			require.NoError(t, json.Unmarshal(fast, &back))
			require.Equal(t, snap.Title, back.Title)
			require.Equal(t, snap.PlainText, back.PlainText)
		})
	}
}
