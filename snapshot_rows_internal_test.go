package ptywright

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snapshotPieces are what the random screens of the tests below are
// written from: text, wide and combining characters, emoji sequences,
// zero-width characters, styles, cursor moves and erasures that leave
// wide characters cut in two, and secrets long enough to wrap.
var snapshotPieces = []string{
	"a", "word ", "  ", "日", "本語", "🙂", "e\u0301", "\u0301", "👨\u200d👩\u200d👧", "🇫🇷", "\u200b", "☺\ufe0f", "x\u20e3",
	"<&>", "\"\\", "\x1b[1m", "\x1b[0m", "\x1b[31m", "\x1b[48;5;17m", "\x1b[38;2;1;2;3m", "\x1b[7m", "\x1b[4:3m", "\x1b[9m",
	"\r", "\r\n", "\x1b[H", "\x1b[2;5H", "\x1b[K", "\x1b[P", "\x1b[@", "\x1b[3D", "\x1b[4C", "\b", "\t", "\x1b[5X",
	"\x1b[?2027h", "\x1b[?2027l", "\x1b[?7l", "\x1b[?7h",
	"API_KEY=sk-test-0123456789abcdefghij ", "sk-ant-api03-AbCdEf0123456789xyzXYZabcdefgh", "token ghp_0123456789abcdefghijABCDEFGHIJ0123 ",
	"Authorization: Bearer qtc4xatws8phP9nhFyJfm5di4PzJ59FHz5r1pY4OjE2jB\r\n",
}

// randomScreen is a screen of the engine, between 1x1 and 12x30, written
// with up to most random pieces.
func randomScreen(t testing.TB, rng *rand.Rand, eng Engine, most int) *Screen {
	t.Helper()
	s, err := NewScreenWith(ScreenOptions{Size: Size{Rows: 1 + rng.IntN(12), Cols: 1 + rng.IntN(30)}, Engine: eng})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	var b []byte
	for range rng.IntN(most) {
		b = append(b, snapshotPieces[rng.IntN(len(snapshotPieces))]...)
	}
	_, _ = s.Write(b)
	return s
}

// TestCellRunsRoundTrip: runs stand for exactly the cells they were made
// of, on random screens of both engines (wide characters cut in two,
// continuation cells holding a zero-width character, clusters: what no
// plain or wide run can hold), redacted or not; and they are fewer.
func TestCellRunsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 1))
	kinds := map[string]int{}
	for _, eng := range []Engine{EngineVTCore, EngineXVT} {
		for i := range 400 {
			s := randomScreen(t, rng, eng, 60)
			cells := s.Snapshot(true).Cells
			if i%2 == 1 {
				cells = RedactSnapshot(s.Snapshot(true), nil).Cells
			}
			runs := CellRunsOf(cells)
			require.Equal(t, cells, CellsOfRuns(runs), "%s screen %d", eng, i)
			require.LessOrEqual(t, len(runs), len(cells))
			for _, r := range runs {
				switch {
				case r.Single && r.WideContinuation:
					kinds["single continuation"]++
				case r.Single && r.Wide:
					kinds["single wide"]++
				case r.Single:
					kinds["single"]++
				case r.Wide:
					kinds["wide"]++
				default:
					kinds["plain"]++
				}
			}
		}
	}
	for _, k := range []string{"plain", "wide", "single", "single wide", "single continuation"} {
		require.Positive(t, kinds[k], "no %s run in any screen: the test lost its reach (%v)", k, kinds)
	}
	require.Empty(t, CellRunsOf(nil))
	require.Empty(t, CellsOfRuns(nil))
}

// TestCellRunsGapsAndRows: a run ends at a new row and at a skipped
// column, even in cells no screen gives.
func TestCellRunsGapsAndRows(t *testing.T) {
	st := CellStyle{Foreground: "default", Background: "default"}
	cells := []Cell{
		{Row: 0, Col: 0, Text: "a", Style: st}, {Row: 0, Col: 1, Text: "b", Style: st},
		{Row: 1, Col: 2, Text: "c", Style: st}, {Row: 1, Col: 4, Text: "d", Style: st},
		{Row: 1, Col: 5, Text: "日", Wide: true, Style: st}, // no continuation: single
		{Row: 2, Col: 0, Text: "\xff", Style: st},          // not UTF-8: single
	}
	runs := CellRunsOf(cells)
	require.Equal(t, []CellRun{
		{Row: 0, Col: 0, Text: "ab", Style: st},
		{Row: 1, Col: 2, Text: "c", Style: st},
		{Row: 1, Col: 4, Text: "d", Style: st},
		{Row: 1, Col: 5, Text: "日", Style: st, Single: true, Wide: true},
		{Row: 2, Col: 0, Text: "\xff", Style: st, Single: true},
	}, runs)
	require.Equal(t, cells, CellsOfRuns(runs))
}

// TestSnapshotRowsRedactWholeScreen: a snapshot of some rows is the
// snapshot of every row, redacted, then cut to them: its cells are those
// rows' cells of the whole screen's redacted grid, and its text those
// rows of the whole screen's redacted text, also when a secret wrapped
// into the rows from above them or out of them below. Random screens of
// both engines, random ranges. Redacting the rows' cells alone would
// have shown some secret (the test fails if no screen has one that does).
func TestSnapshotRowsRedactWholeScreen(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 2))
	r := DefaultRedactor()
	leaks := 0
	for _, eng := range []Engine{EngineVTCore, EngineXVT} {
		for i := range 300 {
			s := randomScreen(t, rng, eng, 40)
			rows := s.Size().Rows
			whole := redactSnapshot(s.read(screenRead{cells: true, rows: &RowRange{}, texts: true}), r, false).cut()
			require.Equal(t, &RowRange{From: 0, To: rows}, whole.Rows)
			lines := whole.Lines()
			require.Len(t, lines, rows)
			for range 4 {
				from := rng.IntN(rows + 2)
				rr := RowRange{From: from}
				if rng.IntN(4) > 0 {
					rr.To = from + 1 + rng.IntN(rows)
				}
				at := fmt.Sprintf("%s screen %d rows %+v", eng, i, rr)
				part := redactSnapshot(s.read(screenRead{cells: true, rows: &rr, texts: true}), r, false).cut()
				want := rr.Clamp(rows)
				require.Equal(t, &want, part.Rows, at)
				var cells []Cell
				for _, c := range whole.Cells {
					if c.Row >= want.From && c.Row < want.To {
						cells = append(cells, c)
					}
				}
				require.Equal(t, len(cells), len(part.Cells), at)
				if len(cells) > 0 {
					require.Equal(t, cells, part.Cells, at)
				}
				require.Equal(t, strings.TrimRight(strings.Join(lines[want.From:want.To], "\n"), "\n"), part.PlainText, at)
				require.Equal(t, lines[want.From:want.To], part.Lines(), at)

				// The rows' cells redacted on their own.
				raw := s.read(screenRead{cells: true, rows: &rr}).cut()
				if alone := RedactSnapshot(raw, r); len(cells) > 0 && fmt.Sprint(alone.Cells) != fmt.Sprint(cells) {
					leaks++
				}
			}
		}
	}
	require.Positive(t, leaks, "no range cut a secret: the test does not test the whole screen's reading")
}

// TestSnapshotRowsRaw: a raw snapshot of some rows is the raw snapshot's
// rows.
func TestSnapshotRowsRaw(t *testing.T) {
	s, err := NewScreen(Size{Rows: 5, Cols: 10})
	require.NoError(t, err)
	defer s.Close()
	_, _ = s.Write([]byte("zero\r\none\r\n\r\nthree"))
	part := redactSnapshot(s.read(screenRead{cells: true, rows: &RowRange{From: 1, To: 3}}), NoRedaction(), false).cut()
	require.Equal(t, "one", part.PlainText)
	require.Equal(t, []string{"one", ""}, part.Lines())
	require.Len(t, part.Cells, 20)
	require.Equal(t, 1, part.Cells[0].Row)
	part = redactSnapshot(s.read(screenRead{rows: &RowRange{From: 2}}), NoRedaction(), false).cut()
	require.Equal(t, "\nthree", part.PlainText)
	require.Empty(t, part.Cells)
	part = redactSnapshot(s.read(screenRead{rows: &RowRange{From: 7, To: 9}}), NoRedaction(), false).cut()
	require.Equal(t, &RowRange{From: 5, To: 5}, part.Rows)
	require.Empty(t, part.PlainText)
	require.Empty(t, part.Lines())
}

func TestRowRangeValidateAndClamp(t *testing.T) {
	for _, tt := range []struct {
		r     RowRange
		field string
	}{
		{RowRange{}, ""}, {RowRange{From: 3}, ""}, {RowRange{From: 3, To: 4}, ""},
		{RowRange{From: -1}, "rows.from"}, {RowRange{From: 3, To: 3}, "rows.to"}, {RowRange{From: 3, To: 1}, "rows.to"},
	} {
		err := tt.r.Validate()
		if tt.field == "" {
			require.NoError(t, err, "%+v", tt.r)
			continue
		}
		var fe *FieldError
		require.ErrorAs(t, err, &fe, "%+v", tt.r)
		require.Equal(t, tt.field, fe.Field)
		require.ErrorIs(t, err, ErrInvalidRowRange)
		require.ErrorIs(t, err, ErrInvalidParams)
	}
	require.Equal(t, RowRange{From: 0, To: 24}, RowRange{}.Clamp(24))
	require.Equal(t, RowRange{From: 0, To: 24}, RowRange{From: -5, To: 99}.Clamp(24))
	require.Equal(t, RowRange{From: 24, To: 24}, RowRange{From: 30, To: 40}.Clamp(24))
	require.Equal(t, RowRange{From: 5, To: 5}, RowRange{From: 5, To: 2}.Clamp(24))
}
