//go:build unix

package rpc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// shapedSnapshot is a snapshot as a client of the shapes reads it: the
// members it must leave out are kept raw, to tell absent from empty.
type shapedSnapshot struct {
	Size      ptywright.Size      `json:"size"`
	Cursor    ptywright.Cursor    `json:"cursor"`
	Rows      *ptywright.RowRange `json:"rows"`
	PlainText string              `json:"plain_text"`
	Cells     []ptywright.Cell    `json:"cells"`
	Runs      []ptywright.CellRun `json:"runs"`
}

// snapshotOf calls method with params and returns the result decoded, and
// its members' names.
func snapshotOf(t *testing.T, c *client, method string, params map[string]any) (shapedSnapshot, []string) {
	t.Helper()
	raw, rpcErr := c.call(method, params)
	require.Nil(t, rpcErr, "%s %v: %v", method, params, rpcErr)
	var snap shapedSnapshot
	require.NoError(t, json.Unmarshal(raw, &snap))
	return snap, keys(t, raw)
}

// bigScreenScript prints styled text on a 1000x1000 screen: a bold line, a
// line in colour with a wide character, and a line at row 500, leaving
// the cursor after "end".
const bigScreenScript = `printf 'first \033[1mbold\033[0m\r\n\033[31;44mred\033[0m 日本 x\r\n\033[501;3Hrow five hundred\033[999;1Hend'; exec sleep 600`

// TestSnapshotShapesOfABigScreen: session.snapshot of a 1000x1000 session
// leaves the cells out when asked (text, cursor and modes only), gives
// some rows when asked (text and cells of those rows only) and the runs of
// the whole screen, which stand for the same cells as the cells do.
func TestSnapshotShapesOfABigScreen(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	s := c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", bigScreenScript}, "rows": 1000, "cols": 1000})
	c.wait(s, containsText("end"))
	wantText := "first bold\nred 日本 x" + strings.Repeat("\n", 499) + "  row five hundred" + strings.Repeat("\n", 498) + "end"

	none, members := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "cells": false})
	require.Equal(t, snapshotKeys, members, "no runs, no rows")
	require.Empty(t, none.Cells)
	require.Equal(t, wantText, none.PlainText)
	require.Equal(t, ptywright.Cursor{Row: 998, Col: 3, Visible: true}, none.Cursor)
	require.Equal(t, 1000, none.Size.Rows)

	some, members := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "rows": map[string]any{"from": 1, "to": 3}})
	require.Equal(t, append(snapshotKeys[:0:0], "alternate_screen", "application_cursor", "application_keypad", "bracketed_paste", "cells", "cursor", "plain_text", "rows", "sequence", "size", "title"), members)
	require.Equal(t, &ptywright.RowRange{From: 1, To: 3}, some.Rows)
	require.Equal(t, "red 日本 x", some.PlainText, "row 2 is blank: trimmed")
	require.Len(t, some.Cells, 2000)
	for i, cell := range some.Cells {
		require.Equal(t, 1+i/1000, cell.Row)
		require.Equal(t, i%1000, cell.Col)
	}
	require.Equal(t, "idx:1", some.Cells[0].Style.Foreground)
	require.True(t, some.Cells[4].Wide)
	require.Equal(t, ptywright.Cursor{Row: 998, Col: 3, Visible: true}, some.Cursor, "the cursor is the screen's")

	runsOf := func(rows map[string]any) shapedSnapshot {
		params := map[string]any{"session": s, "cell_format": "runs"}
		if rows != nil {
			params["rows"] = rows
		}
		snap, members := snapshotOf(t, c, "session.snapshot", params)
		require.Contains(t, members, "runs")
		require.Empty(t, snap.Cells, "runs instead of cells")
		return snap
	}
	runs := runsOf(map[string]any{"from": 1, "to": 3})
	require.Equal(t, some.Cells, ptywright.CellsOfRuns(runs.Runs))
	require.Equal(t, some.PlainText, runs.PlainText)

	all := runsOf(nil)
	require.Nil(t, all.Rows)
	require.Equal(t, wantText, all.PlainText)
	cells := ptywright.CellsOfRuns(all.Runs)
	require.Len(t, cells, 1000*1000)
	require.Equal(t, some.Cells, cells[1000:3000])
	require.Less(t, len(all.Runs), 1010, "a run or a few a row")

	tail, _ := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "cells": false, "rows": map[string]any{"from": 998}})
	require.Equal(t, &ptywright.RowRange{From: 998, To: 1000}, tail.Rows)
	require.Equal(t, "end", tail.PlainText)
	past, _ := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "rows": map[string]any{"from": 2000, "to": 3000}})
	require.Equal(t, &ptywright.RowRange{From: 1000, To: 1000}, past.Rows, "cut to the screen")
	require.Empty(t, past.PlainText)
	require.Empty(t, past.Cells)
}

// runsPieces are what TestSnapshotRunsDecodeToCells's screens are printed
// from.
var runsPieces = []string{
	"a", "word ", "  ", "日", "本語", "🙂", "e\u0301", "👨\u200d👩\u200d👧", "🇫🇷", "\u200b", "<&>", `"\`,
	"\x1b[1m", "\x1b[0m", "\x1b[31m", "\x1b[48;5;17m", "\x1b[38;2;1;2;3m", "\x1b[7m", "\x1b[4:3m", "\x1b[9m", "\x1b[2m",
	"\r\n", "\x1b[H", "\x1b[2;5H", "\x1b[K", "\x1b[P", "\x1b[@", "\x1b[3D", "\x1b[5X",
	"API_KEY=sk-test-0123456789abcdefghij ", "token ghp_0123456789abcdefghijABCDEFGHIJ0123 ",
}

// TestSnapshotRunsDecodeToCells: on random styled screens of real
// sessions, the runs session.snapshot answers decode (CellsOfRuns) to the
// cells it answers by default, redacted or raw, of every row or some.
func TestSnapshotRunsDecodeToCells(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	rng := rand.New(rand.NewPCG(37, 3))
	for i := range 12 {
		var b strings.Builder
		for range rng.IntN(120) {
			b.WriteString(runsPieces[rng.IntN(len(runsPieces))])
		}
		rows, cols := 2+rng.IntN(10), 5+rng.IntN(40)
		s := c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", `printf '%s' "$SCREEN"; printf 'done-printing'; exec sleep 600`},
			"env": map[string]string{"SCREEN": b.String()}, "rows": rows, "cols": cols})
		c.wait(s, map[string]any{"type": "transcript_contains", "value": "done-printing"})
		for _, extra := range []map[string]any{{}, {"redact": false}, {"rows": map[string]any{"from": rng.IntN(rows), "to": rows}}} {
			params := map[string]any{"session": s}
			for k, v := range extra {
				params[k] = v
			}
			at := fmt.Sprintf("screen %d %v: %q", i, extra, b.String())
			cells, _ := snapshotOf(t, c, "session.snapshot", params)
			params["cell_format"] = "runs"
			runs, _ := snapshotOf(t, c, "session.snapshot", params)
			require.Equal(t, cells.PlainText, runs.PlainText, at)
			require.Equal(t, cells.Cells, ptywright.CellsOfRuns(runs.Runs), at)
		}
		c.do("session.close", map[string]any{"session": s}, nil)
	}
}

// TestSnapshotRowsRedactTheWholeScreen: a secret the terminal wrapped
// over two rows is hidden in a snapshot of the second row alone, as in a
// snapshot of both: the rows are cut from the screen once it is redacted.
func TestSnapshotRowsRedactTheWholeScreen(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	s := c.create(map[string]any{"program": "/bin/sh", "args": []string{"-c", `printf 'key sk-ant-api03-AbCdEf0123456789xyzXYZ done'; exec sleep 600`}, "rows": 4, "cols": 20})
	c.wait(s, containsText("done"))
	raw, _ := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "redact": false, "cells": false})
	require.Equal(t, "key sk-ant-api03-AbC\ndEf0123456789xyzXYZ\ndone", raw.PlainText)

	whole, _ := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s})
	require.NotContains(t, whole.PlainText, "0123456789")
	for _, format := range []string{"cells", "runs"} {
		row, _ := snapshotOf(t, c, "session.snapshot", map[string]any{"session": s, "rows": map[string]any{"from": 1, "to": 2}, "cell_format": format})
		require.Equal(t, strings.Split(whole.PlainText, "\n")[1], row.PlainText, format)
		require.NotContains(t, row.PlainText, "0123456789", format)
		cells := row.Cells
		if format == "runs" {
			cells = ptywright.CellsOfRuns(row.Runs)
		}
		require.Equal(t, whole.Cells[20:40], cells, format)
		var text strings.Builder
		for _, cell := range cells {
			text.WriteString(cell.Text)
		}
		require.NotContains(t, text.String(), "0123456789", format)
	}
}

// TestSnapshotShapeParamsRefused: bad shapes are -32602 naming the
// member, for session.snapshot and adapter.snapshot alike.
func TestSnapshotShapeParamsRefused(t *testing.T) {
	c, a := echoAdapterPrinting(t, "ready", "ready")
	for _, tt := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"rows": map[string]any{"from": -1}}, "invalid params: rows.from: must be at least 0, got -1"},
		{map[string]any{"rows": map[string]any{"from": 3, "to": 3}}, "invalid params: rows.to: must be greater than from (3), got 3"},
		{map[string]any{"rows": map[string]any{"to": 0}}, "invalid params: rows.to: must be greater than from (0), got 0"},
		{map[string]any{"rows": map[string]any{"from": 5, "to": 2}}, "invalid params: rows.to: must be greater than from (5), got 2"},
		{map[string]any{"rows": map[string]any{"from": "1"}}, "invalid params: rows.from: must be an integer in range, got a string"},
		{map[string]any{"rows": map[string]any{"from": 1.5}}, "invalid params: rows.from: must be an integer in range, got number 1.5"},
		{map[string]any{"rows": map[string]any{"first": 1}}, "invalid params: rows.first: unknown field (allowed: from, to)"},
		{map[string]any{"rows": []int{1, 2}}, "invalid params: rows: must be an object, got an array"},
		{map[string]any{"cells": "yes"}, "invalid params: cells: must be a boolean, got a string"},
		{map[string]any{"cell_format": "json"}, `invalid params: cell_format: must be "cells" or "runs", got "json"`},
		{map[string]any{"cell_format": 1}, "invalid params: cell_format: must be a string, got number"},
		{map[string]any{"cells": false, "cell_format": "runs"}, "invalid params: cell_format: must be left out when cells is false"},
	} {
		for _, target := range []map[string]any{{"session": a.Session}, {"adapter": a.Adapter}} {
			method := "session.snapshot"
			if target["adapter"] != nil {
				method = "adapter.snapshot"
			}
			params := map[string]any{}
			for k, v := range target {
				params[k] = v
			}
			for k, v := range tt.params {
				params[k] = v
			}
			e := c.callErr(method, params)
			require.Equal(t, int64(CodeInvalidParams), e.Code, "%s %v: %s", method, tt.params, e.Message)
			require.Contains(t, e.Message, tt.msg, "%s %v", method, tt.params)
		}
	}

	// adapter.snapshot takes the shapes as session.snapshot does.
	snap, members := snapshotOf(t, c, "adapter.snapshot", map[string]any{"adapter": a.Adapter, "cell_format": "runs", "rows": map[string]any{"from": 0, "to": 1}})
	require.Contains(t, members, "runs")
	require.Equal(t, "ready", snap.PlainText)
	require.Equal(t, "ready", snap.Runs[0].Text[:5])
	none, members := snapshotOf(t, c, "adapter.snapshot", map[string]any{"adapter": a.Adapter, "cells": false})
	require.Equal(t, snapshotKeys, members)
	require.Empty(t, none.Cells)
}
