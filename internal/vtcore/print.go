package vtcore

import "unicode/utf8"

// A printed character is held back until the next one shows it cannot join
// the same grapheme cluster (an ASCII character never extends a cluster),
// until a control or sequence arrives, or until the write ends.
//
// Widths are those programs count by default: bash's readline, vim and
// tmux (like xterm) give each code point its wcwidth, so a cell holds one
// character of non-zero width with the zero-width ones that follow it
// (combining marks, variation selectors, a ZWJ and, as tmux 3.3 does, the
// character a ZWJ joins). "❤️" takes 1 column, "👍🏽" 4 (2+2). A program
// that enables mode 2027 gets grapheme clusters with ansi.GraphemeWidth,
// which is what x/vt uses whatever the mode says; a cell printed
// differently from x/vt is counted as a departure.

func printableASCII(r rune) bool { return r >= ' ' && r < 0x7f }

// handlePrint is the parser's Print callback.
func (t *Terminal) handlePrint(r rune) {
	if printableASCII(r) {
		if len(t.grapheme) == 1 && printableASCII(rune(t.grapheme[0])) {
			t.printRun(t.grapheme[:1])
			t.grapheme[0] = byte(r)
			return
		}
		t.flushGrapheme()
	}
	t.grapheme = utf8.AppendRune(t.grapheme, r)
}

// printASCII prints a run of printable ASCII that arrived in the ground
// state; with hold, its last byte is held back as handlePrint would.
func (t *Terminal) printASCII(run []byte, hold bool) {
	t.flushGrapheme()
	end := len(run)
	if hold {
		end--
	}
	for i := 0; i < end; {
		i += t.printRun(run[i:end])
	}
	if hold {
		t.grapheme = append(t.grapheme[:0], run[end])
	}
}

// printText is printASCII without a hold, the case of a run before a
// complete CSI, with the checks that cost most on short runs inline.
func (t *Terminal) printText(run []byte) {
	if len(t.grapheme) > 0 {
		t.flushGrapheme()
	}
	for len(run) > 0 {
		run = run[t.printRun(run):]
	}
}

// printBefore is printText for a run before a complete CSI, which leaves
// nothing held back: most often printRun takes the whole run at once.
func (t *Terminal) printBefore(run []byte) {
	if len(t.grapheme) == 0 {
		if n := t.printRun(run); n < len(run) {
			t.printText(run[n:])
		}
		return
	}
	t.printText(run)
}

// flushGrapheme prints the held-back characters, one cluster at a time.
func (t *Terminal) flushGrapheme() {
	g := t.grapheme
	if len(g) == 0 {
		return
	}
	if len(g) == 1 && g[0] < utf8.RuneSelf {
		t.grapheme = g[:0]
		t.printRun(g[:1])
		return
	}
	if r, n := decodeRune(g); n == len(g) && n > 1 && simpleRune(r) {
		// One simple character (often the last before a sequence): its
		// own cluster, printed as the loop below would print it.
		t.grapheme = g[:0]
		t.printSimple(r)
		return
	}
	for len(g) > 0 {
		cluster, width := t.nextCluster(g)
		if len(cluster) == 0 {
			break
		}
		if t.unicodeCore {
			t.printCluster(cluster, width)
		} else {
			t.printCodePoints(cluster, width)
		}
		g = g[len(cluster):]
	}
	t.grapheme = t.grapheme[:0]
}

// zwj is the zero width joiner.
const zwj = 0x200d

// printCodePoints prints a grapheme cluster of grapheme width gw the way
// programs count it without mode 2027: one cell per code point of non-zero
// width, carrying the zero-width code points after it and the one a ZWJ
// joins.
func (t *Terminal) printCodePoints(cluster []byte, gw int) {
	r, n := utf8.DecodeRune(cluster)
	w := t.codePointWidth(r)
	if n == len(cluster) || w == 0 {
		// One code point, or a cluster with nothing to attach its first
		// code point to: one cell as x/vt prints it, at its own width.
		if n == len(cluster) && w != gw {
			t.diverge()
		} else if n != len(cluster) {
			w = gw
		}
		t.printCluster(cluster, w)
		return
	}
	start, joined, split := 0, false, false
	for i := n; i < len(cluster); {
		r2, n2 := utf8.DecodeRune(cluster[i:])
		w2 := t.codePointWidth(r2)
		if w2 == 0 || joined {
			joined = r2 == zwj
			i += n2
			continue
		}
		if !split {
			split = true
			t.diverge() // x/vt prints the cluster in one cell
		}
		t.printCluster(cluster[start:i], w)
		start, w = i, w2
		i += n2
	}
	if !split && w != gw {
		t.diverge()
	}
	t.printCluster(cluster[start:], w)
}

// printRun prints a prefix of run, printable ASCII, and returns its length.
// The common case (no charset, no pending wrap, no insert mode, narrow cells
// underneath) stores cells straight into the row.
func (t *Terminal) printRun(run []byte) int {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	// Stop before the last column: printing there sets the pending wrap.
	n := min(len(run), t.cols-1-x)
	if n <= 0 || x < 0 || uint(y) >= uint(len(s.lines)) ||
		t.atPhantom || t.insert || t.gsingle != 0 || t.charsets[t.gl&3] != nil {
		t.printByte(run[0])
		return 1
	}
	line := s.row(y)
	cells := line[x : x+n]
	if was := raiseUsed(line, x+n); was > x {
		// Cells from the row's mark on are blanks: only those before it
		// may hold a wide character, where the run stops. Text printed
		// on a row cleared or scrolled in is all past the mark.
		for i := range min(was-x, n) {
			if cells[i].width != 0 {
				if i == 0 {
					t.printByte(run[0])
					return 1
				}
				cells = cells[:i]
				break
			}
		}
	}
	text := run[:len(cells)]
	pen := s.cur.pen
	for i := range cells {
		// Field by field: a composite literal is built on the stack and
		// copied, which stalls on store forwarding.
		cells[i].content = int32(text[i])
		cells[i].Style = pen
	}
	t.lastChar = rune(text[len(text)-1])
	s.cur.x = x + len(cells)
	return len(cells)
}

// printByte prints one printable ASCII character.
func (t *Terminal) printByte(b byte) {
	t.putGrapheme(int32(b), 1, b)
}

// printCluster prints one grapheme cluster of the given width.
func (t *Terminal) printCluster(cluster []byte, width int) {
	if len(cluster) == 1 {
		t.putGrapheme(int32(cluster[0]), width, cluster[0])
		return
	}
	r, size := utf8.DecodeRune(cluster)
	content := int32(r)
	if size != len(cluster) {
		if t.clusters.full() {
			t.clusters.compact(t.scrs[0].lines, t.scrs[1].lines, t.hist.storage())
		}
		content = -(t.clusters.intern(cluster) + 1)
	}
	t.putGrapheme(content, width, 0)
}

// putGrapheme is x/vt's handleGrapheme. ascii is the character when the
// cluster is a single ASCII byte (the only clusters charsets map), else 0.
func (t *Terminal) putGrapheme(content int32, width int, ascii byte) {
	s := t.scr
	awm := t.autowrap
	x, y := s.cur.x, s.cur.y
	if t.atPhantom && awm {
		t.index()
		s = t.scr
		y = s.cur.y
		x = 0
	} else if awm && width > 1 && x+width > t.cols {
		// Deliberate difference from x/vt, which writes blanks here and loses
		// the character: like xterm, a wide character that does not fit
		// before the right edge wraps to the next line first.
		t.diverge()
		t.index()
		y = s.cur.y
		x = 0
	}

	single := t.gsingle
	t.gsingle = 0
	if ascii != 0 {
		var cs *charset
		if single > 1 && single < 4 {
			cs = t.charsets[single]
		} else {
			cs = t.charsets[t.gl]
		}
		if cs != nil {
			if r := cs[ascii]; r != 0 {
				content = int32(r)
				width = 1
			}
		}
		if width == 1 {
			t.lastChar = rune(ascii)
		}
	}

	if t.insert {
		// Insert mode (IRM), which x/vt ignores: like xterm, shift the rest
		// of the line right to make room.
		t.diverge()
		s.cur.x, s.cur.y = x, y
		s.insertCells(max(width, 1))
	}

	c := Cell{content: content, width: int8(width - 1), Style: s.cur.pen}
	if y >= 0 && y < t.rows && x >= 0 && x < t.cols {
		line := s.row(y)
		if line[x].width == 0 && width == 1 {
			markUsed(line, x+1)
			line[x] = c
		} else {
			s.prepareSet(line, x)
			s.place(line, x, c)
		}
	}

	// x/vt sets the pending wrap only on the last column; a wide character
	// that ends there sets it too (xterm), so the next character wraps
	// instead of overwriting the wide character's right half.
	t.atPhantom = awm && x+max(width, 1) >= t.cols
	if t.atPhantom && x < t.cols-1 {
		t.diverge() // x/vt sets the pending wrap on the last column only
	}
	if t.atPhantom {
		x = max(x, t.cols-1)
	} else {
		x += width
	}
	s.setCursor(x, y, false)
}
