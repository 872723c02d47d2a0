package vtcore

// Each screen row remembers how far it has been written: all its cells from
// that column on are blanks (zero cells). Rows mostly hold a short line on a
// wide screen, so pushing a row into the scrollback (which trims trailing
// blanks) and erasing a row then touch only the written part instead of
// every cell.
//
// The mark lives in a hidden cell just past the row's end (the row is
// allocated one cell longer than its length), so it moves with the row
// when scrolling rotates row headers. A row without one (cap == len) is
// taken as written to its end, which is always safe: every write of other
// than blanks raises the mark, and only a full erase lowers it. The hidden
// cell's style also says whether the row's text was kept since its last
// write (rowtext.go).

// usedTag marks the hidden cell; no grid cell has this width.
const usedTag int8 = 42

// newRow returns a blank row of cols cells with a mark of 0.
func newRow(cols int) []Cell {
	line := make([]Cell, cols, cols+1)
	line[:cols+1][cols] = Cell{width: usedTag}
	return line
}

// rowUsed returns how many leading cells of line may be other than blanks.
func rowUsed(line []Cell) int {
	if cap(line) > len(line) {
		if m := &line[:len(line)+1][len(line)]; m.width == usedTag {
			return int(m.content)
		}
	}
	return len(line)
}

// markUsed records that cells before end may have been written (and that
// the row was written: rowtext.go).
func markUsed(line []Cell, end int) {
	if cap(line) > len(line) {
		if m := &line[:len(line)+1][len(line)]; m.width == usedTag {
			m.Style.Fg = 0
			if int(m.content) < end {
				m.content = int32(min(end, len(line)))
			}
		}
	}
}

// raiseUsed is markUsed that also returns the mark it found (rowUsed).
func raiseUsed(line []Cell, end int) (was int) {
	if cap(line) > len(line) {
		if m := &line[:len(line)+1][len(line)]; m.width == usedTag {
			m.Style.Fg = 0
			was = int(m.content)
			if was < end {
				m.content = int32(min(end, len(line)))
			}
			return was
		}
	}
	return len(line)
}

// touched records that the row was written without raising its mark (blanks
// written before it).
func touched(line []Cell) { markUsed(line, 0) }

// clearRow blanks every cell of line.
func clearRow(line []Cell) {
	if cap(line) > len(line) {
		if m := &line[:len(line)+1][len(line)]; m.width == usedTag {
			clear(line[:min(int(m.content), len(line))])
			m.content = 0
			m.Style.Fg = 0
			return
		}
	}
	clear(line)
}
