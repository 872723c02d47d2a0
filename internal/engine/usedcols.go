package engine

// UsedCols implements Engine. A wait's every look at a screen whose cursor
// sits after text on its row (a prompt) asks it; reading the row through
// Cell, which converts each cell's style for the wire, cost 4-5 µs a row
// of 80 here.
func (e *VTCore) UsedCols(row int) int {
	_, cols := e.term.Size()
	for c := cols - 1; c >= 0; c-- {
		cell := e.term.Cell(row, c)
		if w := cell.Width(); w != 0 && !blankText(e.term.Text(cell)) {
			return c + w
		}
	}
	return 0
}

// UsedCols implements Engine.
func (e *XVT) UsedCols(row int) int { return usedColsOf(e, row, e.emu.Width()) }

// usedColsOf is UsedCols read through Cell, on a row cols wide.
func usedColsOf(e Engine, row, cols int) int {
	for c := cols - 1; c >= 0; c-- {
		if ec := e.Cell(row, c); ec.Width != 0 && !blankText(ec.Text) {
			return c + ec.Width
		}
	}
	return 0
}

// blankText: a cell showing this shows nothing (a blank, or the right half
// of a wide character).
func blankText(s string) bool { return s == "" || s == " " }
