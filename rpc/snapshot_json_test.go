package rpc

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/workload"
)

// TestAppendSnapshotJSONMatchesMarshal: the hand-built snapshot is byte
// for byte what ScreenSnapshot.MarshalJSON gives, for snapshots of real
// screens (with and without cells, a title, scrollback) and for snapshots
// with random values in every field, strings holding every byte JSON or
// HTML escaping treats specially. It fails if a snapshot type gains a
// field the encoder does not write.
func TestAppendSnapshotJSONMatchesMarshal(t *testing.T) {
	for typ, n := range map[reflect.Type]int{
		reflect.TypeFor[ptywright.ScreenSnapshot](): 15, reflect.TypeFor[ptywright.Cell](): 6,
		reflect.TypeFor[ptywright.CellRun](): 7, reflect.TypeFor[ptywright.RowRange](): 2,
		reflect.TypeFor[ptywright.CellStyle](): 10, reflect.TypeFor[ptywright.Size](): 4, reflect.TypeFor[ptywright.Cursor](): 3,
	} {
		require.Equal(t, n, typ.NumField(), "%s changed: appendSnapshotJSON must follow", typ)
	}
	check := func(s ptywright.ScreenSnapshot) {
		t.Helper()
		want, err := s.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendSnapshotJSON(nil, s)))
		require.Equal(t, "x"+string(want), string(appendSnapshotJSON([]byte("x"), s)), "appends to dst")
	}

	screen, err := ptywright.NewScreen(ptywright.Size{Rows: 24, Cols: 80})
	require.NoError(t, err)
	check(screen.Snapshot(true))
	_, err = screen.Write(workload.ClaudeRedraws(64<<10, 24, 80))
	require.NoError(t, err)
	_, err = screen.Write([]byte("\x1b]0;a <title> & more\x07\x1b[4:3m\x1b[38;2;1;2;3m<b>&amp;</b> 日本語 🙂 \x1b[5;9m x \x1b[21m y\r\n"))
	require.NoError(t, err)
	check(screen.Snapshot(true))
	check(screen.Snapshot(false))
	withRuns := screen.Snapshot(true)
	withRuns.Runs, withRuns.Rows = ptywright.CellRunsOf(withRuns.Cells), &ptywright.RowRange{From: 0, To: 24}
	check(withRuns)
	withRuns.Cells = []ptywright.Cell{}
	check(withRuns)

	pieces := []string{"", "a", "<", ">", "&", "<a href=\"x\">&amp;</a>", `\`, `"`, "\x00", "\x1b", "\x1f", "\x7f", "\t\n\r\b\f",
		"\u2028", "\u2029", "\xff", "\xe2\x80", "é", "─", "日本", "🙂", "idx:12", "rgb:1:2:3", "default", "curly"}
	rng := rand.New(rand.NewPCG(21, 22))
	str := func() string { return randomText(rng, pieces, 4) }
	flag := func() bool { return rng.IntN(2) == 0 }
	num := func() int { return rng.IntN(3000) - 10 }
	for range 300 {
		s := ptywright.ScreenSnapshot{
			Size:     ptywright.Size{Rows: num(), Cols: num(), PixelWidth: num(), PixelHeight: num()},
			Cursor:   ptywright.Cursor{Row: num(), Col: num(), Visible: flag()},
			Sequence: rng.Uint64(), PlainText: str(),
			AlternateScreen: flag(), ApplicationCursor: flag(), ApplicationKeypad: flag(), BracketedPaste: flag(),
			Title: str(),
		}
		if flag() {
			s.Cells = []ptywright.Cell{}
		}
		for range rng.IntN(6) {
			s.Cells = append(s.Cells, ptywright.Cell{Row: num(), Col: num(), Text: str(), Wide: flag(), WideContinuation: flag(), Style: ptywright.CellStyle{
				Foreground: str(), Background: str(), Bold: flag(), Dim: flag(), Italic: flag(), Underline: flag(),
				UnderlineStyle: str(), Inverse: flag(), Strikethrough: flag(), Blink: flag(),
			}})
		}
		switch rng.IntN(3) {
		case 0:
			s.Runs = []ptywright.CellRun{}
		case 1:
			for range rng.IntN(4) + 1 {
				s.Runs = append(s.Runs, ptywright.CellRun{Row: num(), Col: num(), Text: str(), Single: flag(), Wide: flag(), WideContinuation: flag(), Style: ptywright.CellStyle{
					Foreground: str(), Background: str(), Bold: flag(), Dim: flag(), Italic: flag(), Underline: flag(),
					UnderlineStyle: str(), Inverse: flag(), Strikethrough: flag(), Blink: flag(),
				}})
			}
		}
		if flag() {
			s.Rows = &ptywright.RowRange{From: num(), To: num()}
		}
		switch rng.IntN(3) {
		case 0:
			s.Scrollback = []string{}
		case 1:
			for range rng.IntN(4) + 1 {
				s.Scrollback = append(s.Scrollback, str())
			}
		}
		check(s)
	}
}

// randomText returns fewer than most pieces, drawn at random, one after
// another: a string of the random values the encoders' tests check.
func randomText(rng *rand.Rand, pieces []string, most int) string {
	var b strings.Builder
	for range rng.IntN(most) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// BenchmarkSnapshotJSON compares encoding a 24x80 snapshot with its cells
// (a Claude-like screen) through ScreenSnapshot.MarshalJSON, what
// session.snapshot did, and by hand.
func BenchmarkSnapshotJSON(b *testing.B) {
	screen, err := ptywright.NewScreen(ptywright.Size{Rows: 24, Cols: 80})
	require.NoError(b, err)
	_, err = screen.Write(workload.ClaudeRedraws(64<<10, 24, 80))
	require.NoError(b, err)
	snap := screen.Snapshot(true)
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = snap.MarshalJSON()
		}
	})
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			_, _ = encodeResult(snapshotJSON(snap))
		}
	})
}

// BenchmarkSnapshotResponse1000 builds the response to session.snapshot
// of a 1000x1000 screen with its cells (three rows of styled text, the
// rest blank) in process, from the snapshot to the response's bytes:
// what the server does between reading the screen and writing the frame.
func BenchmarkSnapshotResponse1000(b *testing.B) {
	screen, err := ptywright.NewScreen(ptywright.Size{Rows: 1000, Cols: 1000})
	require.NoError(b, err)
	_, err = screen.Write([]byte("first \x1b[1mbold\x1b[0m\r\n\x1b[31;44mred\x1b[0m 日本 x\r\n\x1b[501;3Hrow five hundred\x1b[999;1Hend"))
	require.NoError(b, err)
	snap := screen.Snapshot(true)
	var n int
	for b.Loop() {
		n = len(encodeResponse([]byte("1"), snapshotJSON(snap), nil))
	}
	b.ReportMetric(float64(n), "json-bytes")
}
