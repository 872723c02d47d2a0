package ptywright

import "strings"

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
	snap.PlainText = r.Redact(snap.PlainText)
	snap.Title = r.Redact(snap.Title)
	if len(snap.Scrollback) > 0 {
		snap.Scrollback = redactLines(snap.Scrollback, r)
	}
	if len(snap.Cells) == 0 {
		return snap
	}
	cells := make([]Cell, len(snap.Cells))
	copy(cells, snap.Cells)
	for start := 0; start < len(cells); {
		end := start
		for end < len(cells) && cells[end].Row == cells[start].Row {
			end++
		}
		redactRow(cells[start:end], r)
		start = end
	}
	snap.Cells = cells
	return snap
}

// redactRow redacts the cells of one row in place.
func redactRow(row []Cell, r *Redactor) {
	var b strings.Builder
	offsets := make([]int, len(row)) // byte offset of each cell's text
	for i, c := range row {
		offsets[i] = b.Len()
		b.WriteString(c.Text)
	}
	text := b.String()
	spans := r.Spans(text)
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

// redactLines redacts rows as one text, so a secret that wrapped onto the
// next row is found, and splits it back into as many rows.
func redactLines(lines []string, r *Redactor) []string {
	out := strings.Split(r.Redact(strings.Join(lines, "\n")), "\n")
	if len(out) != len(lines) {
		// A replacement holding a newline: redact row by row instead.
		out = make([]string, len(lines))
		for i, l := range lines {
			out[i] = r.Redact(l)
		}
	}
	return out
}
