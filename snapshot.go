package ptywright

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// SnapshotOptions choose what a snapshot carries.
type SnapshotOptions struct {
	// Cells asks for the per-cell grid, which costs more to build.
	Cells bool
	// Scrollback adds the rows that scrolled off the top of the screen
	// (ScreenSnapshot.Scrollback), redacted like the rest.
	Scrollback bool
	// Raw skips redaction (the same as Redactor: NoRedaction()).
	Raw bool
	// Redactor redacts the text and cells; nil means DefaultRedactor.
	Redactor *Redactor
}

// Snapshot copies the session's screen, redacted unless opts.Raw.
func (s *Session) Snapshot(opts SnapshotOptions) ScreenSnapshot {
	snap := s.screen.Snapshot(opts.Cells)
	if opts.Scrollback {
		snap.Scrollback = s.screen.Scrollback()
		if snap.Scrollback == nil {
			snap.Scrollback = []string{}
		}
	}
	if opts.Raw {
		return snap
	}
	return RedactSnapshot(snap, opts.Redactor)
}

// RedactSnapshot returns snap with secrets in its text, title and cells
// replaced. In cells the replacement is laid over the secret's cells and cut
// or padded with '*' to the secret's width, so the grid keeps its geometry.
// nil r means DefaultRedactor; NoRedaction returns snap as it is.
func RedactSnapshot(snap ScreenSnapshot, r *Redactor) ScreenSnapshot {
	r = r.orDefault()
	if !r.enabled {
		return snap
	}
	snap.PlainText = redactScreenText(snap.PlainText, snap.Size.Cols, r)
	snap.Title = r.Redact(snap.Title)
	if rows := redactScreenRows(snap.Scrollback, snap.Size.Cols, r); rows != nil {
		snap.Scrollback = rows
	}
	if len(snap.Cells) == 0 {
		return snap
	}
	cells := make([]Cell, len(snap.Cells))
	copy(cells, snap.Cells)
	var rows [][]Cell
	var texts []string
	var offsets [][]int // byte offset of each cell's text
	for start, end := 0, 0; start < len(cells); start = end {
		var b strings.Builder
		var offs []int
		for end = start; end < len(cells) && cells[end].Row == cells[start].Row; end++ {
			offs = append(offs, b.Len())
			b.WriteString(cells[end].Text)
		}
		rows, texts, offsets = append(rows, cells[start:end]), append(texts, b.String()), append(offsets, offs)
	}
	full := func(i int) bool {
		last := rows[i][len(rows[i])-1]
		return last.Col == snap.Size.Cols-1 && strings.TrimSpace(last.Text) != "" && (i+1 == len(rows) || rows[i+1][0].Row == last.Row+1)
	}
	for i, spans := range screenRowSpans(texts, full, r) {
		redactRow(rows[i], offsets[i], spans, r)
	}
	snap.Cells = cells
	return snap
}

// redactScreenText redacts the rows of a screen's text (rows joined by
// "\n", as ScreenSnapshot.PlainText), a secret that a soft wrap carried
// onto the next row included.
func redactScreenText(text string, cols int, r *Redactor) string {
	if !r.orDefault().enabled || text == "" {
		return text
	}
	if !hasFullRow(text, cols) {
		return r.Redact(text) // no row can go on in the next: no split
	}
	rows := redactScreenRows(strings.Split(text, "\n"), cols, r)
	if rows == nil {
		return text // nothing to hide: no copy
	}
	return strings.Join(rows, "\n")
}

// hasFullRow reports whether a row of text, other than its last, fills
// cols (> 0) columns.
func hasFullRow(text string, cols int) bool {
	for row, rest, more := strings.Cut(text, "\n"); more && cols > 0; row, rest, more = strings.Cut(rest, "\n") {
		if len(row) >= cols && ansi.StringWidth(row) >= cols {
			return true
		}
	}
	return false
}

// redactScreenRows redacts screen rows cols wide, a secret that a soft
// wrap carried onto the next row included. It returns nil when there is
// nothing to hide.
func redactScreenRows(rows []string, cols int, r *Redactor) []string {
	return redactRows(rows, func(i int) bool {
		// A row's width is at most its length in bytes; cols <= 0: the
		// width is not known, and no row is taken as wrapped.
		return cols > 0 && len(rows[i]) >= cols && ansi.StringWidth(rows[i]) >= cols
	}, r)
}

// redactRows redacts rows, taking those that are full to go on in the next
// (screenRowSpans). It returns nil when there is nothing to hide.
func redactRows(rows []string, full func(i int) bool, r *Redactor) []string {
	var out []string
	repl := r.replacementText()
	for i, spans := range screenRowSpans(rows, full, r) {
		if len(spans) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i] = string(appendRedacted(nil, rows[i], 0, len(rows[i]), spans, repl))
	}
	return out
}

// screenRowSpans returns the spans to hide in each row: those of the rows
// read as one text, one row per line (a private key block spans lines),
// and a row's part of a secret that a soft wrap split across rows. The
// emulator keeps no wrap flag, so a row that fills the width (full) is
// taken to go on in the next one: rows that are full by chance only widen
// the search.
func screenRowSpans(rows []string, full func(i int) bool, r *Redactor) [][][2]int {
	out := make([][][2]int, len(rows))
	// spread maps the spans of rows[i:j] joined by sep onto those rows.
	spread := func(i, j int, sep string) {
		spans := r.Spans(strings.Join(rows[i:j], sep))
		at := 0
		for k := i; k < j && len(spans) > 0; k++ {
			end := at + len(rows[k])
			for _, sp := range spans {
				if from, to := max(sp[0], at), min(sp[1], end); from < to {
					out[k] = append(out[k], [2]int{from - at, to - at})
				}
			}
			at = end + len(sep)
		}
	}
	spread(0, len(rows), "\n")
	for i := 0; i < len(rows); i++ {
		j := i
		for j+1 < len(rows) && full(j) {
			j++
		}
		if j > i {
			spread(i, j+1, "")
			i = j
		}
	}
	for k := range out {
		out[k] = mergeSpans(out[k])
	}
	return out
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
