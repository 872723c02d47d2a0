package ptywright

import (
	"slices"
	"strings"

	"ptywright/internal/secrets"
)

// SnapshotOptions choose what a snapshot carries.
type SnapshotOptions struct {
	// Cells asks for the per-cell grid, which costs more to build.
	Cells bool
	// Runs asks for the grid as runs of cells of one style
	// (ScreenSnapshot.Runs, see CellRun): what Cells says at a fraction of
	// the size. With Cells too, the snapshot carries both.
	Runs bool
	// Rows limits the snapshot to some rows of the screen: PlainText,
	// Cells and Runs then cover those rows only, and ScreenSnapshot.Rows
	// says which. nil means every row. Redaction still reads the whole
	// screen, so a secret that a wrap carries into the rows from outside
	// them is hidden as in a snapshot of every row. The range is cut to
	// the screen (RowRange.Clamp); RowRange.Validate reports a range no
	// screen has, which a caller's input should be checked with.
	Rows *RowRange
	// Scrollback adds the rows that scrolled off the top of the screen
	// (ScreenSnapshot.Scrollback), redacted like the rest. Rows does not
	// limit them.
	Scrollback bool
	// Raw skips redaction (the same as Redactor: NoRedaction()).
	Raw bool
	// Redactor redacts the text and cells; nil means the session's
	// (Options.Redactor).
	Redactor *Redactor
}

// Snapshot copies the session's screen, redacted with the session's
// redactor, or opts.Redactor, unless opts.Raw.
func (s *Session) Snapshot(opts SnapshotOptions) ScreenSnapshot {
	r := s.redactor(opts.Redactor).orDefault()
	if opts.Raw {
		r = NoRedaction()
	}
	snap := s.screen.read(screenRead{cells: opts.Cells || opts.Runs, rows: opts.Rows, texts: r.enabled})
	if opts.Scrollback {
		snap.Scrollback = s.screen.Scrollback()
		if snap.Scrollback == nil {
			snap.Scrollback = []string{}
		}
	}
	snap = redactSnapshot(snap, r, false).cut()
	if opts.Runs {
		snap.Runs = CellRunsOf(snap.Cells)
		if !opts.Cells {
			snap.Cells = []Cell{}
		}
	}
	return snap
}

// RedactSnapshot returns snap with secrets in its text, title and cells
// replaced. In cells the replacement is laid over the secret's cells and cut
// or padded with '*' to the secret's width, so the grid keeps its geometry.
// nil r means DefaultRedactor; NoRedaction returns snap as it is.
func RedactSnapshot(snap ScreenSnapshot, r *Redactor) ScreenSnapshot {
	return redactSnapshot(snap, r, true)
}

// redactSnapshot is RedactSnapshot; with own false, a snapshot that is
// the caller's to give away, the cells are copied only if a row has
// something to hide (a grid's copy costs more than finding its secrets).
func redactSnapshot(snap ScreenSnapshot, r *Redactor, own bool) ScreenSnapshot {
	r = r.orDefault()
	if !r.enabled {
		return snap
	}
	rd := snap.read
	if rd == nil {
		snap.PlainText = redactBelow(snap.above, snap.PlainText, snap.Size.Cols, r)
	} else if snap.PlainText != "" {
		// To be cut to some rows: redacted row by row, so that the rows
		// stay where they were (a secret over several rows, a private
		// key block, is hidden on each of them, not made one).
		lines := strings.Split(snap.PlainText, "\n")
		if rows := redactScreenRows(append(slices.Clip(snap.above), lines...), snap.Size.Cols, r); rows != nil {
			snap.PlainText = strings.Join(rows[len(snap.above):], "\n")
		}
	}
	snap.Title = r.Redact(snap.Title)
	if rows := redactScreenRows(snap.Scrollback, snap.Size.Cols, r); rows != nil {
		snap.Scrollback = rows
	}
	if len(snap.Cells) == 0 {
		return snap
	}
	// The rows' texts (one buffer) and each cell's byte offset in its
	// row's: the secrets are found before a cell is copied, so a screen
	// without one, the common case, costs no copy of its grid. A snapshot
	// of some rows has every row's text already (rowsRead.texts): its
	// secrets are found on the whole screen, as without a range.
	grid := rd != nil && rd.texts != nil
	cells, cols := snap.Cells, snap.Size.Cols
	offs := make([]int, len(cells))
	var buf []byte
	if !grid {
		buf = make([]byte, 0, len(cells)+len(cells)/4)
	}
	var ends, textEnds []int // each row's end in cells and in buf
	for start, end := 0, 0; start < len(cells); start = end {
		off, row := 0, cells[start].Row
		for end = start; end < len(cells) && cells[end].Row == row; end++ {
			offs[end] = off
			t := cells[end].Text
			off += len(t)
			if grid {
				continue
			}
			if len(t) == 1 {
				buf = append(buf, t[0]) // most cells: no call to copy one byte
			} else {
				buf = append(buf, t...)
			}
		}
		ends, textEnds = append(ends, end), append(textEnds, len(buf))
	}
	n := len(snap.above) // read first, as the scrollback rows they are
	texts := append(make([]string, 0, n+len(ends)), snap.above...)
	var full func(i int) bool
	first := n // the index in texts of the cells' first row
	if grid {
		texts = append(texts, rd.texts...)
		full = func(i int) bool {
			if i < n {
				return secrets.FullRow(snap.above[i], cols)
			}
			return rd.full[i-n]
		}
		first += rd.from
	} else {
		all := string(buf)
		for k, e := range textEnds {
			texts = append(texts, all[rowStart(textEnds, k):e])
		}
		full = func(i int) bool {
			if i < n {
				return secrets.FullRow(snap.above[i], cols)
			}
			last := cells[ends[i-n]-1]
			return last.Col == cols-1 && strings.TrimSpace(last.Text) != "" && (i-n+1 == len(ends) || cells[ends[i-n]].Row == last.Row+1)
		}
	}
	var out []Cell
	for i, spans := range secrets.RowSpans(texts, cols, full, r.Spans)[first : first+len(ends)] {
		if len(spans) > 0 {
			if out == nil {
				out = slices.Clone(cells)
			}
			from := rowStart(ends, i)
			redactRow(out[from:ends[i]], offs[from:ends[i]], spans, r)
		}
	}
	if out == nil && own {
		out = slices.Clone(cells)
	}
	if out != nil {
		snap.Cells = out
	}
	return snap
}

// redactLook is RedactSnapshot and quotingScreen of a wait's look (no
// cells, no scrollback) from one reading of its rows.
func redactLook(raw ScreenSnapshot, r *Redactor) (ScreenSnapshot, *Redactor) {
	if r = r.orDefault(); !r.enabled || len(raw.above) > 0 || len(raw.Cells) > 0 || len(raw.Scrollback) > 0 {
		return RedactSnapshot(raw, r), r.quotingScreen(raw.PlainText, raw.Size.Cols)
	}
	snap := raw
	var pieces []string
	snap.PlainText, pieces = secrets.RedactScreen(raw.PlainText, raw.Size.Cols, r.Spans, r.replacement)
	snap.Title = r.Redact(raw.Title)
	return snap, r.hiding(pieces)
}

// rowStart is where row k starts, given where each row ends.
func rowStart(ends []int, k int) int {
	if k == 0 {
		return 0
	}
	return ends[k-1]
}

// redactScreenText redacts the rows of a screen's text (rows joined by
// "\n", as ScreenSnapshot.PlainText), a secret that a wrap carried onto
// the next row included (secrets.RedactText).
func redactScreenText(text string, cols int, r *Redactor) string {
	if r = r.orDefault(); !r.enabled {
		return text
	}
	return secrets.RedactText(text, cols, r.Spans, r.replacement)
}

// redactBelow is redactScreenText for a screen whose first row goes on
// from the rows above (ScreenSnapshot.above).
func redactBelow(above []string, text string, cols int, r *Redactor) string {
	if len(above) == 0 {
		return redactScreenText(text, cols, r)
	}
	rows := redactScreenRows(append(slices.Clip(above), strings.Split(text, "\n")...), cols, r)
	if rows == nil {
		return text
	}
	return strings.Join(rows[len(above):], "\n")
}

// redactScreenRows redacts screen rows cols wide (cols <= 0: unknown, no
// row is read as wrapped), a secret that a wrap split across rows
// included. It returns nil when there is nothing to hide.
func redactScreenRows(rows []string, cols int, r *Redactor) []string {
	return secrets.RedactRows(rows, cols, r.Spans, r.replacementText())
}

// redactRow redacts the cells of one row in place: spans are in the bytes
// of the row's cell texts, whose offsets are given.
func redactRow(row []Cell, offsets []int, spans [][2]int, r *Redactor) {
	if len(spans) == 0 {
		return
	}
	repl := []rune(r.replacementText())
	for _, sp := range spans {
		k := 0
		for i := range row {
			if offsets[i] < sp[0] || offsets[i] >= sp[1] || row[i].WideContinuation {
				continue
			}
			ch := "*"
			if k < len(repl) {
				ch = string(repl[k])
			}
			k++
			row[i].Text = ch
			if row[i].Wide {
				// The replacement is narrow: keep the pair's geometry with a
				// second character in the continuation cell.
				row[i].Wide = false
				if i+1 < len(row) && row[i+1].WideContinuation {
					row[i+1].WideContinuation = false
					row[i+1].Text = "*"
				}
			}
		}
	}
}
