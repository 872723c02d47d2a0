package vtcore

import "slices"

// ICH and DCH: cells inserted and deleted within a row, wide characters
// moved whole as xterm and tmux move them. x/vt's way is kept beside them
// (legacy*), run on a copy of the row only when the row holds a wide
// character where the edit reaches, to tell when the two differ.

// cellEdit is where an ICH or DCH of n cells acts: the cursor's row and
// column, n clamped to the room before the right margin, and the scroll
// region; ok is false when there is nothing to do (n not positive, the
// cursor outside the region, or a row never written that blanks would
// fill).
func (s *screen) cellEdit(n int) (line []Cell, x, clamped int, a rect, ok bool) {
	x, y := s.cur.x, s.cur.y
	a = s.scroll
	if n <= 0 || y < a.top || y >= a.bottom || y >= s.rows || x < a.left || x >= a.right || x >= s.cols {
		return nil, 0, 0, a, false
	}
	line = s.lines[y]
	if line == nil {
		if s.blankCell() == (Cell{}) {
			return nil, 0, 0, a, false // blanks moved over a blank row
		}
		line = s.row(y)
	}
	return line, x, min(n, a.right-x), a, true
}

// insertCells is ICH: n blanks at the cursor inside the scroll region, the
// cells from the cursor on moved right, those pushed past the right margin
// lost. As in xterm, a wide character moves whole; one the cursor or the
// margin cuts in two is blanked. It reports whether the row differs from
// what x/vt makes of it (which moves the halves apart, legacyInsertCells).
func (s *screen) insertCells(n int) (diverged bool) {
	line, x, n, a, ok := s.cellEdit(n)
	if !ok {
		return false
	}
	b := s.blankCell()
	legacy := s.legacyRow(line, x, a, func(l []Cell) { s.legacyInsertCells(l, x, n, a, b) })
	// Cells move right by n: the written part grows by as much.
	markUsed(line, rowUsed(line)+n)
	if b != (Cell{}) {
		markUsed(line, x+n)
	}
	splitWide(line, x, a.left)
	splitWide(line, a.right, a.left)
	copy(line[x+n:a.right], line[x:a.right-n])
	for i := x; i < x+n; i++ {
		line[i] = b
	}
	if j := a.right - 1; j >= x+n && line[j].Width() > 1 {
		line[j] = line[j].blank() // Its tail went past the margin.
	}
	return legacy != nil && !slices.Equal(legacy, line[:a.right])
}

// deleteCells is DCH: n cells at the cursor removed inside the scroll
// region, the rest up to the right margin moved left and blanks brought in
// at the margin. As in xterm, a wide character moves whole, and only one
// the deleted range (or the margin) cuts in two is blanked. It reports
// whether the row differs from what x/vt makes of it (which blanks every
// wide character it moves, legacyDeleteCells).
func (s *screen) deleteCells(n int) (diverged bool) {
	line, x, n, a, ok := s.cellEdit(n)
	if !ok {
		return false
	}
	b := s.blankCell()
	legacy := s.legacyRow(line, x, a, func(l []Cell) { s.legacyDeleteCells(l, x, n, a, b) })
	if b != (Cell{}) {
		markUsed(line, a.right)
	} else {
		touched(line)
	}
	splitWide(line, x, a.left)
	splitWide(line, x+n, a.left)
	splitWide(line, a.right, a.left)
	copy(line[x:a.right-n], line[x+n:a.right])
	for i := a.right - n; i < a.right; i++ {
		line[i] = b
	}
	return legacy != nil && !slices.Equal(legacy, line[:a.right])
}

// splitWide blanks the wide character that the boundary before column at
// cuts in two (its lead before at, a continuation at at), no further left
// than left: an edit that separates its halves would leave half a
// character. The halves take the character's style as blanks.
func splitWide(line []Cell, at, left int) {
	if at <= left || at >= len(line) || line[at].Width() != 0 {
		return
	}
	lead := at - 1
	for lead > left && line[lead].Width() == 0 {
		lead--
	}
	bl := line[lead].blank()
	if line[lead].Width() <= 1 {
		bl = Cell{} // A continuation with no lead: blank it plainly.
	}
	for k := lead; k < len(line) && (k == lead || line[k].Width() == 0); k++ {
		line[k] = bl
	}
}

// legacyRow runs edit, x/vt's way of an ICH or DCH, on a copy of the row
// and returns the copy's cells up to the right margin, when the row holds
// a wide character where the edit reaches (elsewhere the two ways agree
// and it returns nil).
func (s *screen) legacyRow(line []Cell, x int, a rect, edit func([]Cell)) []Cell {
	wide := false
	for _, c := range line[max(x-1, 0):min(a.right+1, len(line))] {
		if c.Width() != 1 {
			wide = true
			break
		}
	}
	if !wide {
		return nil
	}
	s.legacy = append(s.legacy[:0], line...)
	edit(s.legacy)
	return s.legacy[:a.right]
}

// legacyInsertCells is ICH as x/vt does it (ultraviolet's InsertCellArea):
// cells moved right as they are, then blanks written through the
// wide-character clean-up, which can blank the character just moved.
func (s *screen) legacyInsertCells(line []Cell, x, n int, a rect, b Cell) {
	for i := a.right - 1; i >= x+n && i-n >= a.left; i-- {
		line[i] = line[i-n]
	}
	for i := x; i < x+n && i < a.right; i++ {
		s.prepareSet(line, i)
		s.place(line, i, b)
	}
}

// legacyDeleteCells is DCH as x/vt does it (ultraviolet's DeleteCellArea):
// each cell written over its left neighbour through the wide-character
// clean-up, which blanks every wide character on the way.
func (s *screen) legacyDeleteCells(line []Cell, x, n int, a rect, b Cell) {
	for i := x; i < a.right-n; i++ {
		s.prepareSet(line, i)
		s.place(line, i, line[i+n])
	}
	for i := a.right - n; i < a.right; i++ {
		s.prepareSet(line, i)
		s.place(line, i, b)
	}
}
