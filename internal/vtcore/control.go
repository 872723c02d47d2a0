package vtcore

// C0 and C1 control characters.
const (
	bel = 0x07
	bs  = 0x08
	ht  = 0x09
	lf  = 0x0a
	vt  = 0x0b
	ff  = 0x0c
	cr  = 0x0d
	so  = 0x0e
	si  = 0x0f
	ind = 0x84
	nel = 0x85
	hts = 0x88
	ri  = 0x8d
	ss2 = 0x8e
	ss3 = 0x8f
)

// handleControl is the parser's Execute callback.
func (t *Terminal) handleControl(b byte) {
	if len(t.grapheme) > 0 {
		t.flushGrapheme()
	}
	switch b {
	case bs:
		t.moveCursor(-1, 0)
	case ht:
		t.nextTab(1)
	case lf, vt, ff:
		t.linefeed()
	case cr:
		t.carriageReturn()
	case so, si:
		// Shift Out and Shift In, which x/vt ignores: G1 or G0 into GL, as
		// xterm does.
		gl := 0
		if b == so {
			gl = 1
		}
		if t.gl != gl {
			t.gl = gl
			t.diverge()
		}
	case ind:
		t.index()
	case nel:
		t.nextLine()
	case hts:
		t.tabs.set(t.scr.cur.x)
	case ri:
		t.reverseIndex()
	case ss2:
		t.gsingle = 2
	case ss3:
		t.gsingle = 3
	}
}

// linefeed is index, plus a carriage return under LNM (mode 20).
func (t *Terminal) linefeed() {
	t.index()
	if t.newline {
		t.carriageReturn()
	}
}

// nextLine is NEL (ESC E), which x/vt does not implement: index then
// carriage return, as xterm does.
func (t *Terminal) nextLine() {
	t.diverge()
	t.index()
	t.carriageReturn()
}

// index moves the cursor down a row, scrolling the region up at its bottom
// margin. It always clears the pending wrap.
func (t *Terminal) index() {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	sc := s.scroll
	if y == sc.bottom-1 && x >= sc.left && x < sc.right {
		if y == s.rows-1 && sc.top == 0 && sc.left == 0 && sc.right == s.cols && !t.generalIndex {
			s.scrollScreen()
		} else {
			s.scrollUp(1)
		}
	} else if y < sc.bottom-1 || !sc.contains(x, y) {
		s.moveCursor(0, 1)
	}
	t.atPhantom = false
}

// reverseIndex moves the cursor up a row, scrolling the region down at its
// top margin. It keeps the pending wrap, as x/vt does.
func (t *Terminal) reverseIndex() {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	sc := s.scroll
	if y == sc.top && x >= sc.left && x < sc.right {
		s.scrollDown(1)
	} else {
		s.moveCursor(0, -1)
	}
}

// carriageReturn moves to the left margin (DECOM) or column 0.
func (t *Terminal) carriageReturn() {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	switch {
	case t.origin:
		s.setCursor(0, y, true)
	case s.scroll.contains(x, y):
		s.setCursor(s.scroll.left, y, false)
	default:
		s.setCursor(0, y, false)
	}
	t.atPhantom = false
}

// moveCursor is a relative move that clears the pending wrap.
func (t *Terminal) moveCursor(dx, dy int) {
	t.scr.moveCursor(dx, dy)
	t.atPhantom = false
}

// setCursor is an absolute move on the screen that clears the pending wrap.
func (t *Terminal) setCursor(x, y int) {
	t.scr.setCursor(x, y, false)
	t.atPhantom = false
}

// setCursorPosition is an absolute move relative to the origin under DECOM.
func (t *Terminal) setCursorPosition(x, y int) {
	t.scr.setCursor(x, y, t.origin)
	t.atPhantom = false
}

// nextTab moves to the n-th next tab stop, not past the right margin. It
// keeps the pending wrap.
func (t *Terminal) nextTab(n int) {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	for range n {
		ts := t.tabs.next(x)
		if ts <= x {
			break // x/vt keeps looping without moving; the result is the same.
		}
		x = ts
	}
	if x >= s.scroll.right {
		x = min(s.scroll.right-1, t.cols-1)
	}
	s.setCursor(x, y, false)
}

// prevTab moves to the n-th previous tab stop, not before the left margin
// under DECOM. It keeps the pending wrap.
func (t *Terminal) prevTab(n int) {
	s := t.scr
	x := s.cur.x
	left := 0
	if t.origin {
		left = s.scroll.left
	}
	for range n {
		ts := t.tabs.prev(x)
		if ts >= x {
			break
		}
		x = ts
	}
	if x < left {
		x = left
	}
	s.setCursor(x, s.cur.y, false)
}
