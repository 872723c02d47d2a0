package vtcore

// history is the main screen's scrollback: the rows that left the top of the
// screen, oldest first, at most limit of them and at most limit*cellsPerRow
// cells, so that a history of full rows on a very wide screen stays within
// the memory a history of ordinary lines takes. It is a ring so that a full
// history costs no allocation per scrolled row: the evicted row's storage
// takes the new one. Rows are stored without their trailing blank cells
// (zero cells: a space in the default style), so a history of short lines
// stays small whatever the width.
type history struct {
	rows  [][]Cell // ring storage; len(rows) <= limit
	start int      // index in rows of the oldest row
	n     int      // rows held
	limit int
	cells int // cells held
	// copyRows makes take copy like push: a test's reference.
	copyRows bool
}

// cellsPerRow is the average row width the cell budget allows for: rows
// are stored without trailing blanks, and most output lines are shorter.
const cellsPerRow = 40

// setLimit changes how many rows are kept, dropping the oldest beyond it.
func (h *history) setLimit(limit int) {
	limit = max(limit, 0)
	if limit == h.limit {
		return
	}
	kept := make([][]Cell, 0, min(h.n, limit))
	h.cells = 0
	for i := max(h.n-limit, 0); i < h.n; i++ {
		kept = append(kept, h.at(i))
		h.cells += len(kept[len(kept)-1])
	}
	h.rows, h.start, h.n, h.limit = kept, 0, len(kept), limit
}

func (h *history) len() int { return h.n }

// at returns row i, 0 being the oldest. The slice may be shorter than the
// screen's width (trailing blanks trimmed) or longer (it was wider).
func (h *history) at(i int) []Cell { return h.rows[h.slot(i)] }

// slot returns the index in rows of row i (0 <= i < len(rows)), without
// the division a modulo costs on every scrolled row.
func (h *history) slot(i int) int {
	if i += h.start; i >= len(h.rows) {
		i -= len(h.rows)
	}
	return i
}

// push appends a copy of row, trimmed of its trailing blank cells.
func (h *history) push(row []Cell) {
	if h.limit == 0 {
		return
	}
	h.pushTrimmed(row, trimmedLen(row))
}

// pushTrimmed is push for a row whose trimmed length is end.
func (h *history) pushTrimmed(row []Cell, end int) {
	for h.n > 0 && h.cells+end > h.limit*cellsPerRow {
		h.dropOldest()
	}
	h.cells += end
	switch {
	case h.n < len(h.rows):
		// A slot freed by pop or by the cell budget.
		i := h.slot(h.n)
		h.rows[i] = reuse(h.rows[i], row[:end])
		h.n++
	case len(h.rows) < h.limit && h.start == 0:
		// Growing: the ring has not been full yet.
		h.rows = append(h.rows, append([]Cell(nil), row[:end]...))
		h.n++
	default:
		// Full: overwrite the oldest in place, reusing its storage.
		h.cells -= len(h.rows[h.start])
		h.rows[h.start] = reuse(h.rows[h.start], row[:end])
		h.start = h.slot(1)
	}
}

// take is push for a screen row the caller gives up. A row at least half
// full goes into the history as it is, trimmed, instead of being copied
// there (its storage is then at most twice what it holds, as reuse
// allows), and take returns a blank row of the same width for the screen:
// the storage of the slot it took, cleared, or a new row while the history
// grows. Otherwise, and when the slot it takes is not a row of this width
// to give back, it copies like push and returns nil: the caller keeps its
// row. Scrolling text on a terminal as wide as its lines then costs a clear
// per row instead of a copy and a clear, and nothing in allocations.
func (h *history) take(row []Cell) []Cell {
	if h.limit == 0 {
		return nil
	}
	cols, end := len(row), trimmedLen(row)
	if h.copyRows || cap(row) != cols+1 || cap(row) > 2*end {
		h.pushTrimmed(row, end)
		return nil
	}
	for h.n > 0 && h.cells+end > h.limit*cellsPerRow {
		h.dropOldest()
	}
	h.cells += end
	switch {
	case h.n < len(h.rows):
		// A slot freed by pop or by the cell budget.
		i := h.slot(h.n)
		h.n++
		return h.swap(i, row, end)
	case len(h.rows) < h.limit && h.start == 0:
		// Growing: the ring has not been full yet.
		h.rows = append(h.rows, row[:end])
		h.n++
		return newRow(cols)
	default:
		// Full: take the oldest slot.
		h.cells -= len(h.rows[h.start])
		i := h.start
		h.start = h.slot(1)
		return h.swap(i, row, end)
	}
}

// swap puts row, trimmed to end, into slot i and returns the slot's old
// storage as a blank screen row when it has the row's shape; otherwise it
// copies the row into the slot (reuse) and returns nil.
func (h *history) swap(i int, row []Cell, end int) []Cell {
	cols, old := len(row), h.rows[i]
	if cap(old) != cols+1 {
		h.rows[i] = reuse(old, row[:end])
		return nil
	}
	h.rows[i] = row[:end]
	// A slot's cells past its length may be stale (a shorter row copied
	// over a longer one): clear the whole width, and mark it unwritten
	// (which also drops a kept text's flag: rowtext.go).
	line := old[:cols]
	clear(line)
	line[:cols+1][cols] = Cell{width: usedTag}
	return line
}

// trimmedLen returns the length of row without its trailing blank cells,
// scanning back from how far it has been written (rowused.go). It runs for
// every row that scrolls into the history, where most rows end
// in a long run of blanks: four cells are tested at once, with the fields
// OR-ed together rather than compared one by one (struct equality branches
// on every field and made this scan the emulator's largest cost on wide
// screens).
func trimmedLen(row []Cell) int {
	end := rowUsed(row)
	if end > 0 && cellBits(&row[end-1]) != 0 {
		return end // a line written to its mark, the common case
	}
	for end >= 4 && cellBits(&row[end-1])|cellBits(&row[end-2])|cellBits(&row[end-3])|cellBits(&row[end-4]) == 0 {
		end -= 4
	}
	for end > 0 && cellBits(&row[end-1]) == 0 {
		end--
	}
	return end
}

// cellBits is zero exactly when c is the zero Cell (a blank).
func cellBits(c *Cell) uint32 {
	return uint32(c.content) | uint32(uint8(c.width)) | uint32(c.Style.Fg) | uint32(c.Style.Bg) |
		uint32(c.Style.UnderlineColor) | uint32(c.Style.Attrs) | uint32(c.Style.Underline)
}

// reuse copies src into dst's storage when it is not much larger than
// needed (no allocation once the history is full of similar rows), into new
// storage otherwise, so a slot does not keep a long row's memory alive.
func reuse(dst, src []Cell) []Cell {
	if cap(dst) > max(2*len(src), keepCap) {
		dst = nil
	}
	return append(dst[:0], src...)
}

// keepCap is the largest row storage a dropped slot keeps: an 80-column
// row (allocated with its size class's spare room), so that scrolling on an
// ordinary terminal allocates nothing once the history is full, while the
// free slots of a history of very wide rows hold at most keepCap cells each.
const keepCap = 96

// dropOldest forgets the oldest row. Its storage stays for the next push
// unless it is large: the slots of dropped rows must not keep a wide
// screen's rows alive beyond the cell budget.
func (h *history) dropOldest() {
	h.cells -= len(h.rows[h.start])
	if cap(h.rows[h.start]) > keepCap {
		h.rows[h.start] = nil
	}
	h.start = h.slot(1)
	h.n--
}

// pop removes the newest row and returns it copied into a row of cols cells,
// or nil when the history is empty. A wide character cut by the right edge
// becomes blanks.
func (h *history) pop(cols int) []Cell {
	if h.n == 0 {
		return nil
	}
	src := h.at(h.n - 1)
	h.n--
	h.cells -= len(src)
	line := newRow(cols)
	markUsed(line, copy(line, src))
	if len(src) > cols && cols > 0 && line[cols-1].Width() > 1 {
		line[cols-1] = line[cols-1].blank()
	}
	return line
}

// clear forgets every row.
func (h *history) clear() {
	h.rows, h.start, h.n, h.cells = nil, 0, 0, 0
}

// storage returns every row slot, in no particular order, for the cluster
// table's sweep (a free slot is overwritten whole before it is read again).
func (h *history) storage() [][]Cell { return h.rows }
