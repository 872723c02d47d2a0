package ptywright

import (
	"fmt"
	"strings"
)

// A snapshot of some rows (SnapshotOptions.Rows) is read whole, redacted
// whole and then cut to its rows: a secret that a wrap carries into the
// rows from outside them is hidden as in a snapshot of every row.

// RowRange is a range of screen rows, counted from 0 at the top: From up
// to, not including, To. To 0 means through the last row.
type RowRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Validate reports a range no screen has, as a *FieldError wrapping
// ErrInvalidRowRange whose Field is "rows.from" or "rows.to": From below
// 0, or a To (other than 0) not greater than From.
func (r RowRange) Validate() error {
	switch {
	case r.From < 0:
		return &FieldError{Field: "rows.from", Reason: fmt.Sprintf("must be at least 0, got %d", r.From), Err: ErrInvalidRowRange}
	case r.To != 0 && r.To <= r.From:
		return &FieldError{Field: "rows.to", Reason: fmt.Sprintf("must be greater than from (%d), got %d", r.From, r.To), Err: ErrInvalidRowRange}
	}
	return nil
}

// Clamp cuts r to a screen of rows rows: the rows of r the screen has
// (From = To = rows when it has none of them), To 0 made rows, a From
// below 0 made 0.
func (r RowRange) Clamp(rows int) RowRange {
	from := min(max(r.From, 0), rows)
	to := rows
	if r.To != 0 {
		to = min(max(r.To, from), rows)
	}
	return RowRange{From: from, To: to}
}

// screenRead is what Session.Snapshot reads of the screen.
type screenRead struct {
	cells bool
	// rows: nil, every row.
	rows *RowRange
	// texts: the snapshot will be redacted, so a snapshot of some rows
	// with cells needs every row's text (rowsRead.texts).
	texts bool
}

// rowsRead is what a snapshot of some rows needs until Session.Snapshot
// has redacted it: the rows are read whole, redacted whole, then cut.
type rowsRead struct {
	from, to int
	// texts is, when the cells are of some rows only and the snapshot is
	// to be redacted, every row's text as its cells give it (their texts
	// one after another, blanks included: what redactSnapshot reads from
	// a grid of cells), and full whether its last cell holds a character.
	texts []string
	full  []bool
}

// read is the raw snapshot Session.Snapshot asks for. With rows, its
// PlainText is still every row's, for the redaction to read them all;
// cut cuts it.
func (s *Screen) read(q screenRead) ScreenSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.rows == nil {
		return s.snapshotLocked(q.cells)
	}
	snap := s.snapshotLocked(false)
	rr := q.rows.Clamp(s.size.Rows)
	snap.Rows = &rr
	snap.read = &rowsRead{from: rr.From, to: rr.To}
	if q.cells {
		snap.Cells = s.rowCellsLocked(rr.From, rr.To)
		if q.texts && (rr.From > 0 || rr.To < s.size.Rows) {
			snap.read.texts, snap.read.full = s.rowTextsLocked()
		}
	}
	return snap
}

// cut cuts a snapshot read with rows (Screen.read) to them, once it is
// redacted: PlainText keeps the rows of the range, trailing blank rows
// trimmed.
func (snap ScreenSnapshot) cut() ScreenSnapshot {
	rd := snap.read
	if rd == nil {
		return snap
	}
	snap.read = nil
	if snap.PlainText == "" {
		return snap
	}
	lines := strings.Split(snap.PlainText, "\n")
	if rd.from >= len(lines) {
		snap.PlainText = ""
		return snap
	}
	lines = lines[rd.from:min(rd.to, len(lines))]
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	snap.PlainText = strings.Join(lines, "\n")
	return snap
}

// rowTextsLocked returns every row's text as the texts of its cells one
// after another, and whether its last cell holds a character: what
// redactSnapshot reads from a grid of every row's cells, without the
// grid.
func (s *Screen) rowTextsLocked() (texts []string, full []bool) {
	rows, cols := s.size.Rows, s.size.Cols
	buf := make([]byte, 0, rows*cols+rows*cols/4)
	ends := make([]int, rows)
	full = make([]bool, rows)
	for r := range rows {
		for c := range cols {
			t := s.eng.Cell(r, c).Text
			buf = append(buf, t...)
			if c == cols-1 {
				full[r] = strings.TrimSpace(t) != ""
			}
		}
		ends[r] = len(buf)
	}
	all := string(buf)
	texts = make([]string, rows)
	for r := range rows {
		texts[r] = all[rowStart(ends, r):ends[r]]
	}
	return texts, full
}
