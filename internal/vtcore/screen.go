package vtcore

// The grid operations in this file follow charmbracelet/x/vt and
// ultraviolet's Buffer cell for cell, so the differential tests can hold
// vtcore to x/vt's output, except where xterm and tmux show x/vt wrong
// (ICH and DCH over wide characters): there they follow xterm and report
// the departure. What differs throughout is the storage: rows are separate
// slices, so scrolling a full-width region rotates row headers instead of
// copying every cell of the grid. ICH and DCH are in editcells.go.

// rect is a region of the grid, top and left inclusive, bottom and right
// exclusive.
type rect struct {
	top, bottom, left, right int
}

func (r rect) contains(x, y int) bool {
	return r.left <= x && x < r.right && r.top <= y && y < r.bottom
}

// cursor is what DECSC saves: position, pen and visibility.
type cursor struct {
	x, y   int
	pen    Style
	hidden bool
}

// screen is one of the two buffers (main and alternate).
type screen struct {
	// lines is the window back[off:off+rows]: scrolling the whole screen
	// slides the window down the backing array (slide) instead of moving
	// every row header, and the window goes back to the array's start
	// once every few screenfuls. The array is as long as the window until
	// the screen first scrolls.
	//
	// A nil row is a blank one that was never written: a row's cells are
	// allocated when something other than blanks is first written to it
	// (row), so a screen nothing was written to costs its headers only.
	// Readers take a nil row as cols blank cells.
	lines      [][]Cell
	back       [][]Cell
	off        int
	cols, rows int
	cur, saved cursor
	// savedValid is set once a cursor was saved (DECSC, mode 1048 or
	// 1049); leaving mode 1049 restores only a saved one, as tmux does.
	savedValid bool
	scroll     rect
	// spare holds row headers while a region is rotated; nil until then.
	spare [][]Cell
	// legacy is the row x/vt's ICH or DCH would make (legacyRow).
	legacy []Cell
	// hist receives the rows scrolled off the top; nil on the alternate
	// screen.
	hist *history
}

func newScreen(rows, cols int) *screen {
	s := &screen{}
	s.resize(rows, cols)
	return s
}

// row returns row y to write to, allocating the cells of a row never
// written (nil) first.
func (s *screen) row(y int) []Cell {
	line := s.lines[y]
	if line == nil {
		line = newRow(s.cols)
		s.lines[y] = line
	}
	return line
}

// spareHeaders returns room for n row headers while a region is rotated.
func (s *screen) spareHeaders(n int) [][]Cell {
	if len(s.spare) < n {
		s.spare = make([][]Cell, s.rows)
	}
	return s.spare[:n]
}

func clamp(n, lo, hi int) int {
	if lo > hi {
		lo, hi = hi, lo
	}
	return min(hi, max(lo, n))
}

func (s *screen) bounds() rect { return rect{0, s.rows, 0, s.cols} }

// resize changes the grid size. Columns are cut or added at the right,
// without reflowing. Rows follow tmux and xterm rather than x/vt (which cuts
// and adds them at the bottom): shrinking first drops the rows below the
// cursor, then moves rows off the top into the history (or drops them on
// the alternate screen), the cursor following its row; growing takes rows
// back from the history before adding blank rows at the bottom. The scroll
// region resets. It reports whether the rows differ from x/vt's.
func (s *screen) resize(rows, cols int) (diverged bool) {
	if cols != s.cols {
		for y, line := range s.lines {
			if line == nil {
				continue // still blank
			}
			nl := newRow(cols)
			copy(nl, line)
			markUsed(nl, rowUsed(line))
			s.lines[y] = nl
		}
	}
	old := len(s.lines)
	switch {
	case rows < old:
		needed := old - rows
		drop := min(max(old-1-s.cur.y, 0), needed)
		clear(s.lines[old-drop:])
		s.lines = s.lines[:old-drop]
		if needed -= drop; needed > 0 {
			diverged = true
			if s.hist != nil {
				for _, line := range s.lines[:needed] {
					s.hist.push(line)
				}
			}
			n := copy(s.lines, s.lines[needed:])
			clear(s.lines[n:])
			s.lines = s.lines[:n]
			s.cur.y -= needed
		}
	case rows > old && old > 0 && s.hist != nil && s.hist.len() > 0:
		pull := min(rows-old, s.hist.len())
		diverged = true
		lines := make([][]Cell, pull, rows)
		for i := pull - 1; i >= 0; i-- {
			lines[i] = s.hist.pop(cols)
		}
		s.lines = append(lines, s.lines...)
		s.cur.y += pull
	}
	for len(s.lines) < rows {
		s.lines = append(s.lines, nil) // blank, allocated when written (row)
	}
	s.back = make([][]Cell, rows) // slide makes room once the screen scrolls
	copy(s.back, s.lines)
	s.off, s.lines = 0, s.back[:rows:rows]
	s.rows, s.cols = rows, cols
	s.scroll = s.bounds()
	s.spare = nil
	return diverged
}

// clearAll blanks every cell.
func (s *screen) clearAll() {
	for _, line := range s.lines {
		clearRow(line)
	}
}

// blank reports whether every cell is a default blank.
func (s *screen) blank() bool {
	for _, line := range s.lines {
		for _, c := range line {
			if c != (Cell{}) {
				return false
			}
		}
	}
	return true
}

// reset is x/vt's Screen.Reset: blank grid, home cursor, no saved cursor,
// full scroll region.
func (s *screen) reset() {
	s.clearAll()
	s.cur = cursor{}
	s.saved, s.savedValid = cursor{}, false
	s.scroll = s.bounds()
}

// blankCell is the cell erasures write: a blank with the pen's background.
func (s *screen) blankCell() Cell { return Cell{Style: Style{Bg: s.cur.pen.Bg}} }

// prepareSet blanks the wide character that writing at x would cut in half.
func (s *screen) prepareSet(line []Cell, x int) {
	prev := line[x]
	switch pw := prev.Width(); {
	case pw > 1:
		b := prev.blank()
		for j := 0; j < pw && x+j < len(line); j++ {
			line[x+j] = b
		}
	case pw == 0:
		for j := 1; x-j >= 0; j++ {
			wide := line[x-j]
			if ww := wide.Width(); ww > 1 && j < ww {
				b := wide.blank()
				for k := 0; k < ww && x-j+k < len(line); k++ {
					line[x-j+k] = b
				}
				break
			}
		}
	}
}

// place stores c at x after prepareSet, with its continuation cells.
func (s *screen) place(line []Cell, x int, c Cell) {
	// prepareSet may have written up to x+1 too.
	markUsed(line, x+2)
	line[x] = c
	cw := c.Width()
	if x+cw > len(line) {
		b := c.blank()
		for i := 0; i < cw && x+i < len(line); i++ {
			line[x+i] = b
		}
		return
	}
	for j := 1; j < cw; j++ {
		line[x+j] = continuation
	}
}

// fill writes c over columns [x0, x1) of row y, cell by cell as ultraviolet's
// FillArea does; a full row is a plain fill since no wide-character clean-up
// can reach outside it.
func (s *screen) fill(y, x0, x1 int, c Cell) {
	if y < 0 || y >= s.rows {
		return
	}
	x0 = max(x0, 0)
	x1 = min(x1, s.cols)
	if x0 >= x1 {
		return
	}
	line := s.lines[y]
	if line == nil {
		if c == (Cell{}) {
			return // blanks over a blank row
		}
		line = s.row(y)
	}
	if x0 == 0 && x1 == s.cols {
		if c == (Cell{}) {
			clearRow(line)
			return
		}
		markUsed(line, x1)
		for x := range line {
			line[x] = c
		}
		return
	}
	if c != (Cell{}) {
		markUsed(line, x1)
	} else {
		touched(line)
	}
	for x := x0; x < x1; x++ {
		if line[x].width == 0 {
			line[x] = c
			continue
		}
		s.prepareSet(line, x)
		s.place(line, x, c)
	}
}

// fillRect fills the rows [top, bottom) between x0 and x1.
func (s *screen) fillRect(top, bottom, x0, x1 int, c Cell) {
	for y := max(top, 0); y < min(bottom, s.rows); y++ {
		s.fill(y, x0, x1, c)
	}
}

// setCursor moves the cursor, clamped to the screen, or with margins to the
// scroll region with x and y taken relative to its origin (CUP under DECOM).
func (s *screen) setCursor(x, y int, margins bool) {
	if !margins {
		y = clamp(y, 0, s.rows-1)
		x = clamp(x, 0, s.cols-1)
	} else {
		y = clamp(s.scroll.top+y, s.scroll.top, s.scroll.bottom-1)
		x = clamp(s.scroll.left+x, s.scroll.left, s.scroll.right-1)
	}
	s.cur.x, s.cur.y = x, y
}

// moveCursor moves the cursor by dx, dy: bounded by the scroll region when it
// starts inside it, by the screen otherwise (CUU, CUD, CUF, CUB).
func (s *screen) moveCursor(dx, dy int) {
	sc := s.scroll
	ox, oy := s.cur.x, s.cur.y
	if ox < sc.left {
		sc.left = 0
	}
	if ox >= sc.right {
		sc.right = s.cols
	}
	px, py := ox+dx, oy+dy
	var x, y int
	if sc.contains(ox, oy) {
		y = clamp(py, sc.top, sc.bottom-1)
		x = clamp(px, sc.left, sc.right-1)
	} else {
		y = clamp(py, 0, s.rows-1)
		x = clamp(px, 0, s.cols-1)
	}
	s.cur.x, s.cur.y = x, y
}

// clampCursor keeps c on a grid of the current size. x/vt leaves a cursor
// saved before a shrink, or the inactive screen's cursor, outside the grid.
// It reports whether it had to move it.
func (s *screen) clampCursor(c *cursor) bool {
	x, y := clamp(c.x, 0, s.cols-1), clamp(c.y, 0, s.rows-1)
	moved := x != c.x || y != c.y
	c.x, c.y = x, y
	return moved
}

func (s *screen) saveCursor() { s.saved, s.savedValid = s.cur, true }

// restoreCursor restores the saved cursor and reports whether it had to be
// clamped to the grid.
func (s *screen) restoreCursor() bool {
	s.cur = s.saved
	return s.clampCursor(&s.cur)
}

// insertLines is IL at the cursor row; false when the cursor is outside the
// scroll region.
func (s *screen) insertLines(n int) bool {
	if n <= 0 {
		return false
	}
	x, y := s.cur.x, s.cur.y
	a := s.scroll
	if y < a.top || y >= a.bottom || x < a.left || x >= a.right {
		return false
	}
	s.insertLineArea(y, n, s.blankCell(), a)
	return true
}

// deleteLines is DL at the cursor row; false when the cursor is outside the
// scroll region.
func (s *screen) deleteLines(n int) bool {
	if n <= 0 {
		return false
	}
	x, y := s.cur.x, s.cur.y
	a := s.scroll
	if y < a.top || y >= a.bottom || x < a.left || x >= a.right {
		return false
	}
	s.deleteLineArea(y, n, s.blankCell(), a)
	return true
}

// insertLineArea moves rows [y, bottom) of a down by n and blanks the n rows
// opened at y. A full-width region rotates row headers.
func (s *screen) insertLineArea(y, n int, c Cell, a rect) {
	if n <= 0 || y < a.top || y >= a.bottom || y >= s.rows {
		return
	}
	if n > a.bottom-y {
		n = a.bottom - y
	}
	if a.left == 0 && a.right == s.cols {
		seg := s.lines[y:a.bottom]
		k := len(seg) - n
		spare := s.spareHeaders(n)
		copy(spare, seg[k:])
		copy(seg[n:], seg[:k])
		copy(seg, spare)
		clear(spare)
	} else {
		for i := a.bottom - 1; i >= y+n; i-- {
			s.copyCells(i, i-n, a)
		}
	}
	s.fillRect(y, y+n, a.left, a.right, c)
}

// deleteLineArea moves rows (y+n, bottom) of a up by n and blanks the n rows
// opened at the bottom. A full-width region rotates row headers.
func (s *screen) deleteLineArea(y, n int, c Cell, a rect) {
	if n <= 0 || y < a.top || y >= a.bottom || y >= s.rows {
		return
	}
	if n > a.bottom-y {
		n = a.bottom - y
	}
	if a.left == 0 && a.right == s.cols {
		seg := s.lines[y:a.bottom]
		if y == 0 && a.bottom == s.rows {
			s.slide(n)
		} else if n == 1 {
			first := seg[0]
			copy(seg, seg[1:])
			seg[len(seg)-1] = first
		} else {
			spare := s.spareHeaders(n)
			copy(spare, seg[:n])
			copy(seg, seg[n:])
			copy(seg[len(seg)-n:], spare)
			clear(spare)
		}
	} else {
		for dst := y; dst < a.bottom-n; dst++ {
			s.copyCells(dst, dst+n, a)
		}
	}
	s.fillRect(a.bottom-n, a.bottom, a.left, a.right, c)
}

// copyCells copies the columns [a.left, a.right) of row src over those of
// row dst, as a region that is not the full width scrolls.
func (s *screen) copyCells(dst, src int, a rect) {
	from := s.lines[src]
	if from == nil {
		// Blanks: over a blank row they change nothing.
		if to := s.lines[dst]; to != nil {
			touched(to)
			clear(to[a.left:a.right])
		}
		return
	}
	to := s.row(dst)
	markUsed(to, min(rowUsed(from), a.right))
	copy(to[a.left:a.right], from[a.left:a.right])
}

// slideRoom is the backing array's length in screen heights: the window
// goes back to its start once every slideRoom-1 screenfuls of scrolling.
const slideRoom = 4

// slide moves the top n rows of the screen to its bottom, as rotating
// the headers would, by moving them past the window's end and the window
// down by n.
func (s *screen) slide(n int) {
	if s.off+s.rows+n > len(s.back) {
		if len(s.back) < slideRoom*s.rows {
			// The first scroll: the room to slide in.
			back := make([][]Cell, slideRoom*s.rows)
			copy(back, s.lines)
			s.back = back
		} else {
			copy(s.back, s.lines)
			clear(s.back[s.rows:])
		}
		s.off = 0
	}
	// Header by header: n is most often 1, where copy and clear cost
	// runtime calls.
	for i := s.off; i < s.off+n; i++ {
		s.back[i+s.rows] = s.back[i]
		s.back[i] = nil // no stale header outside the window
	}
	s.off += n
	s.lines = s.back[s.off : s.off+s.rows : s.off+s.rows]
}

// scrollUp is SU: delete n lines at the top of the scroll region, the cursor
// left where it was.
func (s *screen) scrollUp(n int) {
	x, y := s.cur.x, s.cur.y
	if s.hist != nil && s.scroll.top == 0 && s.scroll.left == 0 && s.scroll.right == s.cols {
		// Rows leave the top of the screen (not of a region below it):
		// keep them, as xterm and tmux do. The history may take a row
		// as it is and give a blank one back (take).
		for i, line := range s.lines[:min(n, s.scroll.bottom)] {
			if blank := s.hist.take(line); blank != nil {
				s.lines[i] = blank
			}
		}
	}
	s.setCursor(s.cur.x, 0, true)
	s.deleteLines(n)
	s.setCursor(x, y, false)
}

// scrollScreen is scrollUp(1) when the scroll region is the whole screen
// and the cursor is inside it, the case of every line feed at the bottom
// of a shell: the top row goes to the history, the rows slide up and the
// new bottom row is blanked, the cursor staying where it is. It does what
// scrollUp, deleteLines and deleteLineArea do in that case, without
// moving the cursor to the top and back and testing the region on the
// way.
func (s *screen) scrollScreen() {
	if s.hist != nil {
		if blank := s.hist.take(s.lines[0]); blank != nil {
			s.lines[0] = blank
		}
	}
	s.slide(1)
	if s.cur.pen.Bg == DefaultColor {
		clearRow(s.lines[s.rows-1]) // fill's case of a blank cell
	} else {
		s.fill(s.rows-1, 0, s.cols, s.blankCell())
	}
}

// scrollDown is SD: insert n lines at the top of the scroll region, the
// cursor left where it was.
func (s *screen) scrollDown(n int) {
	x, y := s.cur.x, s.cur.y
	s.setCursor(s.cur.x, 0, true)
	s.insertLines(n)
	s.setCursor(x, y, false)
}
