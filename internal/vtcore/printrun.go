package vtcore

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// The fast paths for non-ASCII text. Most of what programs print outside
// ASCII is box drawing, CJK, symbols and emoji, characters that can never
// join their neighbour in a grapheme cluster (simpleRune). Between two such
// characters, or before an ASCII character or a control, the cluster
// boundary is certain, so the character is printed at once without being
// held back and run through the segmenter. Anything else takes the general
// path (handlePrint, flushGrapheme), which prints the same cells.

// decodeRune is utf8.DecodeRune with the two- and three-byte forms decoded
// inline (the standard library leaves them to a call that is not inlined).
func decodeRune(p []byte) (rune, int) {
	if len(p) >= 3 {
		if b0, b1, b2 := p[0], p[1], p[2]; b0&0xf0 == 0xe0 && b1&0xc0 == 0x80 && b2&0xc0 == 0x80 {
			r := rune(b0&0x0f)<<12 | rune(b1&0x3f)<<6 | rune(b2&0x3f)
			if r >= 0x800 && (r < 0xd800 || r > 0xdfff) {
				return r, 3
			}
			return utf8.RuneError, 1
		}
	}
	if len(p) >= 2 {
		if b0, b1 := p[0], p[1]; b0 >= 0xc2 && b0 <= 0xdf && b1&0xc0 == 0x80 {
			return rune(b0&0x1f)<<6 | rune(b1&0x3f), 2
		}
	}
	return utf8.DecodeRune(p)
}

// boundaryBefore reports whether a grapheme cluster boundary is certain
// between a simple character and the start of p: p starts with printable
// ASCII, with a C0 control other than ESC or DEL (which flush what is held),
// or with a complete simple character. Anything else (ESC, whose sequence
// may end without being dispatched, an incomplete or invalid UTF-8
// sequence, or the end of the write) is not certain.
func boundaryBefore(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	if b := p[0]; b < utf8.RuneSelf {
		return b != 0x1b
	}
	r, n := decodeRune(p)
	return n > 1 && simpleRune(r)
}

// lastRuneSimple reports whether the last character of g is simple.
func lastRuneSimple(g []byte) bool {
	r, n := utf8.DecodeLastRune(g)
	return n > 0 && r != utf8.RuneError && simpleRune(r)
}

// printUTF8 prints the run of complete non-ASCII UTF-8 characters at the
// start of p, which arrived in the ground state, and returns its length (0
// when p does not start with one). Characters whose cluster is not yet
// certain are held back in t.grapheme as handlePrint would hold them. Each
// character is decoded once: the one after it, which tells whether its
// cluster is complete, is the next one printed.
func (t *Terminal) printUTF8(p []byte) int {
	r, n := decodeRune(p)
	if n <= 1 {
		return 0 // invalid or incomplete: the parser's
	}
	simple := simpleRune(r)
	i := 0
	for {
		j := i + n
		var r2 rune
		n2, simple2 := 0, false
		if j < len(p) && p[j] >= utf8.RuneSelf {
			r2, n2 = decodeRune(p[j:])
			simple2 = n2 > 1 && simpleRune(r2)
		}
		if len(t.grapheme) > 0 {
			if simple && lastRuneSimple(t.grapheme) {
				// A certain boundary before r: what is held is complete.
				t.flushGrapheme()
			}
		}
		// After a simple character the boundary is certain before printable
		// ASCII, a control other than ESC (which flushes) or another simple
		// character; not before ESC, whose sequence may end without being
		// dispatched, broken UTF-8 or the end of the write.
		if len(t.grapheme) == 0 && simple && (simple2 || j < len(p) && p[j] < utf8.RuneSelf && p[j] != 0x1b) {
			if r2 == r {
				// A run of one character (a rule, a bar): all but its last
				// copy are printed at once; the last goes round the loop,
				// which checks what follows it.
				k := j + repeatLen(p, j, n)/n*n
				t.printSimpleRun(r, (k-n-i)/n)
				i = k - n
				continue
			}
			t.printSimple(r)
		} else {
			t.grapheme = append(t.grapheme, p[i:j]...)
		}
		i = j
		if n2 <= 1 {
			return i
		}
		r, n, simple = r2, n2, simple2
	}
}

// printSimple prints a simple non-ASCII character as a cluster of its own,
// as flushGrapheme would: at its grapheme width under mode 2027, else at
// its wcwidth (a departure from x/vt where the two differ). A narrow
// character over a narrow cell, away from the right edge and the pending
// wrap, is stored straight into the row.
func (t *Terminal) printSimple(r rune) {
	ws := t.widthSlot(r)
	w := ws.w
	if !t.unicodeCore {
		if ws.wc != ws.w {
			t.diverge()
		}
		w = ws.wc
	}
	s := t.scr
	if x, y := s.cur.x, s.cur.y; w == 1 && !t.atPhantom && !t.insert && x >= 0 && x < t.cols-1 && y >= 0 && y < t.rows {
		if line := s.row(y); line[x].width == 0 {
			markUsed(line, x+1)
			c := &line[x]
			c.content = int32(r)
			c.Style = s.cur.pen
			s.cur.x = x + 1
			t.gsingle = 0
			return
		}
	}
	t.putGrapheme(int32(r), int(w), 0)
}

// printSimpleRun prints the simple non-ASCII character r count times, as
// as many calls of printSimple would; narrow copies are stored straight
// into the row.
func (t *Terminal) printSimpleRun(r rune, count int) {
	ws := t.widthSlot(r)
	if w := ws.w; !t.unicodeCore && ws.wc != w || w != 1 || t.atPhantom || t.insert {
		for range count {
			t.printSimple(r)
		}
		return
	}
	s := t.scr
	if x, y := s.cur.x, s.cur.y; x >= 0 && y >= 0 && y < t.rows {
		line := s.row(y)
		pen := s.cur.pen
		end := min(x+count, t.cols-1)
		markUsed(line, end)
		for ; x < end && line[x].width == 0; x++ {
			line[x].content = int32(r)
			line[x].Style = pen
		}
		if x > s.cur.x {
			count -= x - s.cur.x
			s.cur.x = x
			t.gsingle = 0
		}
	}
	for range count {
		t.printSimple(r)
	}
}

// printableRun returns the length of the run of printable ASCII (0x20 to
// 0x7e) that starts p, testing eight bytes at a time: a line of text is
// one run, scanned for every byte written.
func printableRun(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	if len(p) == 0 || p[0] < ' ' || p[0] >= 0x7f {
		return 0 // a lone character between two others: no word to load
	}
	// The rest of p shrinks as it is scanned: a slice's length is the
	// only bound to test, where an index needed two.
	q := p
	for len(q) >= 8 {
		x := binary.LittleEndian.Uint64(q)
		// A byte below 0x20 borrows in x-0x20..20 where its high bit was
		// clear; a byte above 0x7e carries into its high bit in x+1..1 or
		// has it set already. Carries and borrows only start at such a
		// byte, so the lowest flagged byte is the first one out of range.
		if bad := ((x-0x20*ones)&^x | (x + ones) | x) & highs; bad != 0 {
			return len(p) - len(q) + bits.TrailingZeros64(bad)/8
		}
		q = q[8:]
	}
	for len(q) > 0 && q[0] >= ' ' && q[0] < 0x7f {
		q = q[1:]
	}
	return len(p) - len(q)
}

// repeatLen returns how many bytes from p[from] on each equal the byte n
// before it: a run of one character of n bytes repeats with period n.
// Eight bytes are compared at a time.
func repeatLen(p []byte, from, n int) int {
	k := from
	for ; k+8 <= len(p); k += 8 {
		if x := binary.LittleEndian.Uint64(p[k:]) ^ binary.LittleEndian.Uint64(p[k-n:]); x != 0 {
			return k - from + bits.TrailingZeros64(x)/8
		}
	}
	for k < len(p) && p[k] == p[k-n] {
		k++
	}
	return k - from
}
