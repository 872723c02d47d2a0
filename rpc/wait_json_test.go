package rpc

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/workload"
)

// TestEncodeWaitResultMatchesMarshal: the hand-built session.wait result is
// byte for byte what marshal makes of the same waitResult: screens, titles,
// scrollback and transcript tails with every kind of byte JSON treats
// specially ('<' '>' '&' not HTML-escaped), every outcome shape (none,
// regex with a capture and a position, stability, exit, any/all with the
// branches that fired, a lua predicate's evidence of nested JSON), and a
// snapshot with cells, which goes to marshal.
func TestEncodeWaitResultMatchesMarshal(t *testing.T) {
	require.Equal(t, 7, reflect.TypeFor[waitResult]().NumField(), "waitResult changed: update encodeWaitResult")
	pieces := []string{
		"plain text ", `"quoted"`, `back\slash`, "\x1b[1;31m", "\n", "\t", "\b\f\v\x00\x01\x1f\x7f",
		"<a href=\"x\">&amp;</a>", "\u2028", "\u2029", "héllo ─│┌ 日本語 🙂", "\xff", "\xe2\x80", "\xc3", "\xed\xa0\x80",
	}
	rng := rand.New(rand.NewPCG(7, 8))
	text := func() string { return randomText(rng, pieces, 12) }
	capture, row, col, minMs := "<cap>\u2028", 3, 7, int64(500)
	outcomes := []*ptywright.MatchOutcome{
		nil,
		{Kind: ptywright.MatchScreenRegex, Pattern: `M\d+ <&>`, Capture: &capture, Row: &row, Col: &col},
		{Kind: ptywright.MatchContainsText, Text: "a\"b<"},
		{Kind: ptywright.MatchScreenStable, MinMs: &minMs},
		{Kind: ptywright.MatchProcessExited, Exit: &ptywright.ExitStatus{Code: -1, Signal: "SIGKILL"}},
		{Kind: ptywright.MatchAny, Matched: []ptywright.MatchOutcome{{Kind: ptywright.MatchContainsText, Text: "x"}, {Kind: ptywright.MatchScreenStable, MinMs: &minMs}}},
		{Kind: ptywright.MatchLua, Plugin: "claude", Predicate: "ready", Capture: &capture,
			Evidence: map[string]any{"z": []any{1.5, "<b>", nil, true}, "a": map[string]any{"\u2029": "\xff"}}},
	}
	for i := range 3000 {
		snap := ptywright.ScreenSnapshot{
			Size:              ptywright.Size{Rows: 1 + rng.IntN(60), Cols: 1 + rng.IntN(200), PixelWidth: rng.IntN(2) * 1600},
			Cursor:            ptywright.Cursor{Row: rng.IntN(60), Col: rng.IntN(200), Visible: rng.IntN(2) == 0},
			Sequence:          rng.Uint64(),
			PlainText:         text(),
			AlternateScreen:   rng.IntN(2) == 0,
			ApplicationCursor: rng.IntN(2) == 0,
			ApplicationKeypad: rng.IntN(2) == 0,
			BracketedPaste:    rng.IntN(2) == 0,
		}
		if rng.IntN(3) == 0 {
			snap.Title = text()
		}
		if rng.IntN(4) == 0 {
			snap.Scrollback = []string{text(), "", text()}
		}
		if i%500 == 0 {
			snap.Cells = []ptywright.Cell{{Row: 0, Col: 1, Text: "<", Style: ptywright.CellStyle{Foreground: "idx:1"}}}
		}
		r := waitResult{
			Matched:        rng.IntN(8) != 0,
			Sequence:       rng.Uint64(),
			ElapsedMs:      rng.Int64N(1 << 40),
			Snapshot:       toWireSnapshot(snap),
			TranscriptTail: text(),
			Outcome:        outcomes[rng.IntN(len(outcomes))],
			StableForMs:    rng.Int64N(1 << 40),
		}
		want, err := marshal(r)
		require.NoError(t, err)
		got, err := encodeWaitResult(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "snapshot %+v", snap)
	}
	// Snapshots toWireSnapshot does not make, which go to marshal: nil
	// cells, a title set to "", a title other than the snapshot's own;
	// and long, negative and extreme values on the path by hand.
	empty, other := "", "x<y"
	long := strings.Repeat("ab\x1b[1m─\u2028", 3000)
	for _, w := range []wireSnapshot{
		{snapshotFields: snapshotFields{PlainText: "a"}},
		{snapshotFields: snapshotFields{Title: "own"}, Title: &empty},
		{snapshotFields: snapshotFields{Title: "own", Cells: []ptywright.Cell{}}, Title: &other},
		{snapshotFields: snapshotFields{Size: ptywright.Size{Rows: -1, Cols: -5}, Cursor: ptywright.Cursor{Row: -1, Col: -2}, Sequence: 1<<64 - 1, PlainText: long, Cells: []ptywright.Cell{}, Scrollback: []string{long}}, Title: &long},
	} {
		r := waitResult{Sequence: 1<<64 - 1, ElapsedMs: -1 << 63, Snapshot: w, TranscriptTail: long, StableForMs: 1<<63 - 1}
		want, err := marshal(r)
		require.NoError(t, err)
		got, err := encodeWaitResult(r)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
	// What marshal refuses (a lua predicate's evidence holding NaN) is the
	// same internal error a response encoded by marshal gets.
	r := waitResult{Snapshot: toWireSnapshot(ptywright.ScreenSnapshot{}), Outcome: &ptywright.MatchOutcome{Kind: ptywright.MatchLua, Evidence: math.NaN()}}
	_, mErr := marshal(r)
	require.Error(t, mErr)
	_, err := encodeWaitResult(r)
	require.ErrorIs(t, err, ErrInternal)
	require.Equal(t, encodingError(mErr).Error(), err.Error())
}

// BenchmarkEncodeWaitResult measures the encoding of a typical session.wait
// result (a Claude Code screen, a 2000-character transcript tail with
// escapes, a regex outcome) by hand and by marshal.
func BenchmarkEncodeWaitResult(b *testing.B) {
	out := workload.ClaudeRedraws(64<<10, 24, 80)
	scr, err := ptywright.NewScreen(ptywright.Size{Rows: 24, Cols: 80})
	require.NoError(b, err)
	defer scr.Close()
	_, err = scr.Write(out)
	require.NoError(b, err)
	snap := scr.Snapshot(false)
	tail := []rune(string(out))
	tail = tail[len(tail)-2000:]
	capture, row, col := "frame 7", 3, 0
	r := waitResult{
		Matched: true, Sequence: 123456, ElapsedMs: 12,
		Snapshot:       toWireSnapshot(snap),
		TranscriptTail: string(tail),
		Outcome:        &ptywright.MatchOutcome{Kind: ptywright.MatchScreenRegex, Pattern: `frame \d+`, Capture: &capture, Row: &row, Col: &col},
		StableForMs:    3,
	}
	b.Run("hand", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeWaitResult(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
