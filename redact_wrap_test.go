//go:build unix

package ptywright_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// wrappedKey is longer than two rows of a 40-column terminal, so the
// terminal wraps it: its continuation rows hold nothing a pattern would
// recognise on its own.
var wrappedKey = "sk-ant-api03-" + strings.Repeat("Qw7eR9tY2u", 9)

// cellRows joins the cells' text row by row.
func cellRows(snap ptywright.ScreenSnapshot) []string {
	rows := make([]string, snap.Size.Rows)
	for _, c := range snap.Cells {
		rows[c.Row] += c.Text
	}
	return rows
}

// TestWrappedSecretIsRedactedOnEveryRow: a key the terminal soft-wraps over
// three rows is hidden on all of them, in the text, the cells, a wait's
// screen, the scrollback and an adapter's inspection, while rows that are
// full by chance keep their text.
func TestWrappedSecretIsRedactedOnEveryRow(t *testing.T) {
	tuitest.NoLeak(t)
	body := wrappedKey[len("sk-ant-api03-"):]
	script := `printf '%s\n' '` + strings.Repeat("=", 40) + `' 'plain words' 'key: ` + wrappedKey + `' 'after'; printf 'tail%.0s\n' 1 2 3 4 5 6 7 8 9 10 11 12 13 14; printf 'shown: ` + wrappedKey + `'; echo; echo done; sleep 30`
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, Size: ptywright.Size{Rows: 12, Cols: 40}})
	res := waitFor(t, s, ptywright.ContainsText("done"))
	requireNoFragment(t, res.Snapshot.PlainText, body)
	require.Contains(t, res.Snapshot.PlainText, "shown: [REDACTED]")

	snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true, Scrollback: true})
	requireNoFragment(t, snap.PlainText, body)
	for _, row := range cellRows(snap) {
		requireNoFragment(t, row, body)
	}
	scroll := strings.Join(snap.Scrollback, "\n")
	requireNoFragment(t, scroll, body)
	require.Contains(t, snap.Scrollback, strings.Repeat("=", 40), "a row full by chance keeps its text")
	require.Contains(t, snap.Scrollback, "plain words")
	require.Contains(t, snap.Scrollback, "key: [REDACTED]")

	raw := s.Snapshot(ptywright.SnapshotOptions{Raw: true, Scrollback: true})
	require.Contains(t, strings.Join(raw.Scrollback, ""), wrappedKey, "the raw snapshot is untouched")
}

// TestWrappedSecretInCellsKeepsGeometry: the redacted cells of a wrapped
// key keep the rows' widths, and the rows before and after are unchanged.
func TestWrappedSecretInCellsKeepsGeometry(t *testing.T) {
	tuitest.NoLeak(t)
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `printf 'key: ` + wrappedKey + `\nnext line\n'; sleep 30`}, Size: ptywright.Size{Rows: 8, Cols: 40}})
	waitFor(t, s, ptywright.ContainsText("next line"))
	raw := s.Snapshot(ptywright.SnapshotOptions{Cells: true, Raw: true})
	red := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
	require.Len(t, red.Cells, len(raw.Cells))
	rawRows, redRows := cellRows(raw), cellRows(red)
	for i := range rawRows {
		require.Equal(t, len([]rune(rawRows[i])), len([]rune(redRows[i])), "row %d keeps its width", i)
		requireNoFragment(t, redRows[i], wrappedKey[len("sk-ant-api03-"):])
	}
	require.Equal(t, rawRows[3], redRows[3], "the row after the key is unchanged")
	require.True(t, strings.HasPrefix(redRows[0], "key: [REDACTED]"), redRows[0])
}

// TestWrappedSecretInInspection: an adapter's inspection redacts the
// screen before it splits body from status, so the wrapped key is hidden in
// its text, body, status and projection, and raw only when asked for.
func TestWrappedSecretInInspection(t *testing.T) {
	tuitest.NoLeak(t)
	// The key wraps from the body (rows 0-4) into the status rows (5-7).
	script := `printf '1\n2\n3\n4\nkey: ` + wrappedKey + `\n'; sleep 30`
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, Size: ptywright.Size{Rows: 8, Cols: 40}})
	h := ptywright.NewExtensionHandle(s, &replExtension{}, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("key: "))
	ctx := context.Background()
	body := wrappedKey[len("sk-ant-api03-"):]
	in, err := h.Inspect(ctx, nil)
	require.NoError(t, err)
	for name, text := range map[string]string{"plain": in.PlainText, "body": in.BodyText, "status": in.StatusText, "projection": in.Projection.RawText} {
		requireNoFragment(t, text, body)
		require.NotEmpty(t, text, name)
	}
	require.Contains(t, in.BodyText, "key: [REDACTED]")
	raw, err := h.Inspect(ctx, ptywright.NoRedaction())
	require.NoError(t, err)
	require.Contains(t, strings.ReplaceAll(raw.PlainText, "\n", ""), wrappedKey)
}

// TestWrappedSecretInPluginState: a state whose evidence and metadata quote
// the screen's rows hides a wrapped key on every quoted row; the handle
// knows the screen's width, so only rows that fill it are read as wrapped.
func TestWrappedSecretInPluginState(t *testing.T) {
	tuitest.NoLeak(t)
	script := `printf 'answer: done\nkey: ` + wrappedKey + `\nnext\n'; sleep 30`
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, Size: ptywright.Size{Rows: 10, Cols: 40}})
	h := ptywright.NewExtensionHandle(s, &quotingExtension{}, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("next"))
	st, err := h.State(context.Background())
	require.NoError(t, err)
	body := wrappedKey[len("sk-ant-api03-"):]
	requireNoFragment(t, st.Evidence, body)
	require.Contains(t, st.Evidence, "answer: done\nkey: [REDACTED]\n[REDACTED]\n[REDACTED]\nnext", "rows that are not full keep their text")
	lines, ok := st.Metadata["lines"].([]string)
	require.True(t, ok, "%#v", st.Metadata["lines"])
	requireNoFragment(t, strings.Join(lines, "\n"), body)
	require.Contains(t, lines, "next")

	// Explain redacts its texts reading the quoted rows at the width of
	// the screen classified.
	for _, opts := range [][]ptywright.ExplainOption{nil, {ptywright.ExplainAt(st.Sequence)}} {
		rx, err := h.Explain(context.Background(), opts...)
		require.NoError(t, err)
		require.Equal(t, 40, rx.ScreenCols)
		requireNoFragment(t, rx.Evidence, body)
		require.Contains(t, rx.Evidence, "answer: done\nkey: [REDACTED]\n[REDACTED]\n[REDACTED]\nnext")
	}
}

// A wait's captures are redacted wherever they sit in the outcome (under
// any and all too) and whole: a capture spanning the rows of a secret the
// terminal wrapped hides each row's piece.
func TestWaitCapturesAreRedacted(t *testing.T) {
	tuitest.NoLeak(t)
	script := `printf 'key: ` + wrappedKey + `\nend-mark\n'; sleep 30`
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, Size: ptywright.Size{Rows: 10, Cols: 40}})
	body := wrappedKey[len("sk-ant-api03-"):]
	whole := ptywright.ScreenRegex(`(?s)key: (.*)end-mark`)
	for _, m := range []ptywright.Matcher{whole, ptywright.Any(whole), ptywright.All(ptywright.ContainsText("end-mark"), ptywright.Any(whole))} {
		res := waitFor(t, s, m)
		b, err := json.Marshal(res.Outcome)
		require.NoError(t, err)
		requireNoFragment(t, string(b), body)
		require.Contains(t, string(b), "[REDACTED]", "%s", b)
	}
}

// A secret wrapped off the top of the screen: its first rows are in the
// scrollback and row 0 goes on from them. The screen's text and cells hide
// row 0's piece, and a screen whose row 0 does not go on is unchanged.
func TestSecretWrappedOffTheTopIsRedactedInCells(t *testing.T) {
	tuitest.NoLeak(t)
	script := `printf 'key: ` + wrappedKey + `\n'; i=0; while [ $i -lt 8 ]; do echo after$i; i=$((i+1)); done; printf end-mark; sleep 30`
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}, Size: ptywright.Size{Rows: 10, Cols: 40}})
	waitFor(t, s, ptywright.ContainsText("end-mark"))
	raw := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
	body := wrappedKey[len("sk-ant-api03-"):]
	require.True(t, strings.HasPrefix(raw.PlainText, "7eR9tY2u"), "row 0 is the key's last row: %q", raw.PlainText)
	snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true, Scrollback: true})
	requireNoFragment(t, snap.PlainText, body)
	var row0 strings.Builder
	for _, c := range snap.Cells {
		if c.Row == 0 {
			row0.WriteString(c.Text)
		}
	}
	requireNoFragment(t, row0.String(), body)
	require.Contains(t, snap.PlainText, "\nafter3\n", "the rows below are unchanged")
	for _, row := range snap.Scrollback {
		requireNoFragment(t, row, body)
	}
}
