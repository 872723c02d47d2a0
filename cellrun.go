package ptywright

import "unicode/utf8"

// CellRun is cells of one row, side by side, with one style: the compact
// form of a snapshot's cells (SnapshotOptions.Runs). A screen of text in a
// few colours is a few runs a row instead of a cell a column, each cell
// some 250 bytes of JSON.
//
// A run covers the cells from Col on, and which cells Text stands for
// depends on its kind:
//
//   - a plain run (Single and Wide false): one narrow cell per code point
//     of Text, the cell's text that code point;
//   - a wide run (Wide true): one wide character per code point of Text,
//     taking two cells, a Wide cell whose text is the code point and its
//     WideContinuation cell, whose text is "";
//   - a single run (Single true): one cell, whose text is Text as it is
//     and whose Wide and WideContinuation are the run's. The cells no
//     other run can hold are single: a character of several code points
//     (a letter and its combining mark, an emoji sequence, a flag), a
//     cell with an empty text, a zero-width character's cell. A wide
//     character of several code points is two single runs, its Wide cell
//     and its WideContinuation cell.
//
// CellRunsOf and CellsOfRuns convert between the two forms exactly. Every
// cell of the cells a snapshot covers is in one run, blanks included (a
// blank cell's text is " "), so a row of a screen is one run or more,
// never none.
type CellRun struct {
	Row   int       `json:"row"`
	Col   int       `json:"col"`
	Text  string    `json:"text"`
	Style CellStyle `json:"style"`
	// Single says the run is one cell whose text is Text.
	Single bool `json:"single,omitempty"`
	// Wide: a wide run, or a single run of a Wide cell.
	Wide bool `json:"wide,omitempty"`
	// WideContinuation: a single run of a WideContinuation cell.
	WideContinuation bool `json:"wide_continuation,omitempty"`
}

// cellKind is how a cell can be in a run: with the narrow cells of a plain
// run, with the wide pairs of a wide run, or on its own.
type cellKind uint8

const (
	kindSingle cellKind = iota
	kindNarrow
	kindWide
)

// runKind is the kind of run cells[i] can be in, and how many cells it
// takes there (a wide character takes its continuation).
func runKind(cells []Cell, i int) (cellKind, int) {
	c := &cells[i]
	if c.WideContinuation || !oneCodePoint(c.Text) {
		return kindSingle, 1
	}
	if !c.Wide {
		return kindNarrow, 1
	}
	if i+1 < len(cells) {
		if n := &cells[i+1]; n.WideContinuation && !n.Wide && n.Text == "" && n.Row == c.Row && n.Col == c.Col+1 && n.Style == c.Style {
			return kindWide, 2
		}
	}
	return kindSingle, 1
}

// oneCodePoint reports whether s is one valid UTF-8 encoded code point.
func oneCodePoint(s string) bool {
	if len(s) == 1 {
		return s[0] < utf8.RuneSelf
	}
	r, size := utf8.DecodeRuneInString(s)
	return size == len(s) && (r != utf8.RuneError || size > 1)
}

// CellRunsOf returns cells (in the order a snapshot gives them: row by
// row, column by column) as runs. A run ends where the style, the row or
// the kind of cell changes, or where a column is skipped.
func CellRunsOf(cells []Cell) []CellRun {
	runs := make([]CellRun, 0, 8)
	// The runs' texts, one after another in one buffer, made one string
	// at the end: the runs' texts are parts of it.
	buf := make([]byte, 0, len(cells)+len(cells)/4)
	ends := make([]int, 0, 8)
	for i := 0; i < len(cells); {
		c := &cells[i]
		kind, n := runKind(cells, i)
		run := CellRun{Row: c.Row, Col: c.Col, Style: c.Style}
		buf = append(buf, c.Text...)
		if kind == kindSingle {
			run.Single, run.Wide, run.WideContinuation = true, c.Wide, c.WideContinuation
			runs, ends = append(runs, run), append(ends, len(buf))
			i++
			continue
		}
		run.Wide = kind == kindWide
		next := c.Col + n
		for i += n; i < len(cells); i += n {
			d := &cells[i]
			if d.Row != run.Row || d.Col != next || d.Style != run.Style {
				break
			}
			var k cellKind
			if k, n = runKind(cells, i); k != kind {
				break
			}
			if t := d.Text; len(t) == 1 {
				buf = append(buf, t[0]) // most cells: no call to copy one byte
			} else {
				buf = append(buf, t...)
			}
			next += n
		}
		runs, ends = append(runs, run), append(ends, len(buf))
	}
	all := string(buf)
	for k := range runs {
		runs[k].Text = all[rowStart(ends, k):ends[k]]
	}
	return runs
}

// CellsOfRuns returns the cells runs stand for (see CellRun): CellRunsOf
// undone.
func CellsOfRuns(runs []CellRun) []Cell {
	n := 0
	for i := range runs {
		switch r := &runs[i]; {
		case r.Single:
			n++
		case r.Wide:
			n += 2 * utf8.RuneCountInString(r.Text)
		default:
			n += utf8.RuneCountInString(r.Text)
		}
	}
	cells := make([]Cell, 0, n)
	for i := range runs {
		r := &runs[i]
		if r.Single {
			cells = append(cells, Cell{Row: r.Row, Col: r.Col, Text: r.Text, Wide: r.Wide, WideContinuation: r.WideContinuation, Style: r.Style})
			continue
		}
		col := r.Col
		for j := 0; j < len(r.Text); {
			_, size := utf8.DecodeRuneInString(r.Text[j:])
			text := r.Text[j : j+size]
			j += size
			cells = append(cells, Cell{Row: r.Row, Col: col, Text: text, Wide: r.Wide, Style: r.Style})
			col++
			if r.Wide {
				cells = append(cells, Cell{Row: r.Row, Col: col, WideContinuation: true, Style: r.Style})
				col++
			}
		}
	}
	return cells
}
