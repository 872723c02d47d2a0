package vtcore

import (
	"math/rand/v2"
	"testing"
)

// writeViaParser is Write without its ground-state fast paths: every byte
// goes through the parser, whose callbacks are the general path.
func (t *Terminal) writeViaParser(p []byte) {
	for _, b := range p {
		t.parser.Advance(b)
	}
	t.flushGrapheme()
}

// fastPathPieces are what the random streams are made of: ASCII, simple
// characters of every width, characters that join (combining marks, ZWJ,
// variation selectors, skin tones, regional indicators, Hangul jamo,
// Indic), controls, sequences and broken UTF-8.
var fastPathPieces = []string{
	"a", "Z", " ", "~", "é", "─", "│", "╭", "中", "文", "カ", "🙂", "⏺", "✻", "…", "·", "↓", "\u00a0",
	"\u0301", "\u200d", "\ufe0f", "\ufe0e", "🏽", "🇫", "🇷", "\u1100", "\u1161", "\u11a8", "क", "\u094d", "ष",
	"👩", "💻", "❤", "\u00ad", "\ufffd", "\r\n", "\r", "\n", "\t", "\b", "\x1b[2K", "\x1b[1A", "\x1b[G",
	"\x1b[38;2;215;119;87m", "\x1b[39m", "\x1b[1m", "\x1b[m", "\x1b[5;3H", "\x1b[?2027h", "\x1b[?2027l",
	"\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b[3@", "\x1b[2P", "\x1b(0", "\x1b(B", "\x0e", "\x0f",
	"\x1b[", "\x1b", "\xc3", "\xe2\x94", "\xf0\x9f", "\xff", "\x80", "\x18", "\x1b[1;2$", "\x1b[2b",
	"\x1b[2147483647;214748364799;99999999999999999999m", "\x1b[4:3m", "\x1b[38:2::1:2:3m", "\x1b[48;5;200m",
	"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34;35;36;37m",
	"────────", "中中中", "🙂🙂", "│││", "\x1b[;5H", "\x1b[21474836473;21474836472H", "\x1b[3;;4r", "\x1b[?25l", "\x1b[>c", "\x1b[ q", "\x1b[1 $p", "\x1b[2147483647@", "\x1b[J", "\x1b[1J",
	"\x1b[2;4r", "\x1b[r", "\x1b[2L", "\x1b[M", "\x1b[S", "\x1b[2T", "\x1b[?1049h", "\x1b[?1049l", "\x1b[?69h",
	"\x1b[3;12s", "\x1b[?69l", "\x1b[44m", "\x1b[2J", "\x1b[3J", "\x1b[K", "\x1b[1K", "\x1b[3X", "\x1bM", "\x1bD",
	// SGRs the memo (sgrmemo.go) keeps, repeated on differing pens: resets
	// first or not, SGR 21 (a departure, never kept), too long to keep.
	"\x1b[0m", "\x1b[;1m", "\x1b[00;32m", "\x1b[0:3m", "\x1b[1;31m", "\x1b[22m", "\x1b[7m", "\x1b[27;4m", "\x1b[21m",
	"\x1b[38;5;9m", "\x1b[38;2;255;255;255m", "\x1b[48;2;255;255;2550m", "\x1b[4:2;58;5;3m", "\x1b[99999999999999m",
}

// randomChunk returns fewer than most pieces, drawn at random, one after
// another: a write of the random streams the tests here feed.
func randomChunk(rng *rand.Rand, pieces []string, most int) []byte {
	var chunk []byte
	for range rng.IntN(most) {
		chunk = append(chunk, pieces[rng.IntN(len(pieces))]...)
	}
	return chunk
}

// TestFastPathsMatchTheParser checks that Write's fast paths print exactly
// what the parser's callbacks print, on random streams cut into random
// writes, with and without grapheme clustering (mode 2027).
func TestFastPathsMatchTheParser(t *testing.T) {
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 0xfa57))
		rows, cols := 1+rng.IntN(8), 1+rng.IntN(30)
		fast, slow := New(rows, cols, nil), New(rows, cols, nil)
		fast.SetScrollback(50)
		slow.SetScrollback(50)
		var stream []byte
		for range 1 + rng.IntN(6) {
			chunk := randomChunk(rng, fastPathPieces, 40)
			stream = append(stream, chunk...)
			fast.Write(chunk)
			slow.writeViaParser(chunk)
			if rng.IntN(4) == 0 {
				r, c := 1+rng.IntN(8), 1+rng.IntN(30)
				fast.Resize(r, c)
				slow.Resize(r, c)
			}
		}
		for _, term := range []*Terminal{fast, slow} {
			checkRowsUsed(t, term)
		}
		if d := diffTerminals(fast, slow); d != "" {
			t.Fatalf("seed %d, %dx%d, stream %q: %s", seed, rows, cols, stream, d)
		}
	}
}

// checkRowsUsed checks every row's mark (rowused.go): the cells from it on
// are blanks, and the rows that left into the scrollback kept their text.
// A row never written is nil (screen.row) and has no mark.
func checkRowsUsed(t *testing.T, term *Terminal) {
	t.Helper()
	for _, s := range term.scrs {
		for y, line := range s.lines {
			if line == nil {
				continue
			}
			if cap(line) == len(line) {
				t.Fatalf("row %d has no mark", y)
			}
			for x := rowUsed(line); x < len(line); x++ {
				if line[x] != (Cell{}) {
					t.Fatalf("row %d: cell %d past the mark %d is not blank", y, x, rowUsed(line))
				}
			}
		}
	}
}

// diffTerminals describes the first difference between a and b's grids,
// cursors and departure counts, or returns "".
func diffTerminals(a, b *Terminal) string {
	if ay, ax := a.Cursor(); true {
		if by, bx := b.Cursor(); ax != bx || ay != by {
			return "cursor differs"
		}
	}
	if a.atPhantom != b.atPhantom || a.divergences != b.divergences || a.lastChar != b.lastChar || a.scr.cur.pen != b.scr.cur.pen {
		return "pending wrap, departures, last character or pen differ"
	}
	if a.hist.len() != b.hist.len() {
		return "scrollback lengths differ"
	}
	for i := range a.hist.len() {
		if string(a.AppendScrollbackText(nil, i)) != string(b.AppendScrollbackText(nil, i)) {
			return "scrollback differs"
		}
	}
	for y := range a.rows {
		for x := range a.cols {
			ca, cb := a.Cell(y, x), b.Cell(y, x)
			if a.Text(ca) != b.Text(cb) || ca.Width() != cb.Width() || ca.Style != cb.Style {
				return "cell differs at row " + string(rune('0'+y)) + ": " + string(a.AppendRowText(nil, y)) + " vs " + string(b.AppendRowText(nil, y))
			}
		}
	}
	return ""
}

// TestPrintableRun holds the eight-at-a-time scan to the byte loop it
// replaces: every byte value at every position of a printable run, and
// random mixes.
func TestPrintableRun(t *testing.T) {
	slow := func(p []byte) int {
		i := 0
		for i < len(p) && p[i] >= ' ' && p[i] < 0x7f {
			i++
		}
		return i
	}
	for n := range 20 {
		for at := range n {
			for v := range 256 {
				p := make([]byte, n)
				for i := range p {
					p[i] = 'a' + byte(i%26)
				}
				p[at] = byte(v)
				if got, want := printableRun(p), slow(p); got != want {
					t.Fatalf("%q: %d, want %d", p, got, want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []byte{0x00, 0x1f, 0x20, 0x21, 0x7e, 0x7f, 0x80, 0xff, 'x'}
	for range 100000 {
		p := make([]byte, rng.IntN(40))
		for i := range p {
			if rng.IntN(4) == 0 {
				p[i] = byte(rng.IntN(256))
			} else {
				p[i] = edges[rng.IntN(len(edges))]
			}
		}
		if got, want := printableRun(p), slow(p); got != want {
			t.Fatalf("%q: %d, want %d", p, got, want)
		}
	}
}

// TestSGRKey holds the eight-at-a-time scan to the byte loop on every
// length and position of the final byte, and on random bytes near the
// range's edges.
func TestSGRKey(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		k0, k1, n, ok := sgrKey(b)
		w0, w1, wn, wok := sgrKeySlow(b)
		if ok != wok || ok && (k0 != w0 || k1 != w1 || n != wn) {
			t.Fatalf("%q: %x %x %d %v, want %x %x %d %v", b, k0, k1, n, ok, w0, w1, wn, wok)
		}
	}
	for size := range 24 {
		for at := range size {
			for _, end := range []byte{'m', 'H', '/', '<', 0x80, 0xbc, 0xff, 0} {
				b := make([]byte, size)
				for i := range b {
					b[i] = "0123456789;:"[i%12]
				}
				b[at] = end
				check(b)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	edges := []byte("0189;:m/<mm\x00\x7f\x80\xbb\xbc\xff")
	for range 200000 {
		b := make([]byte, rng.IntN(30))
		for i := range b {
			if rng.IntN(3) == 0 {
				b[i] = edges[rng.IntN(len(edges))]
			} else {
				b[i] = '0' + byte(rng.IntN(12))
			}
		}
		check(b)
	}
}

// TestRepeatLen holds the eight-at-a-time comparison to a byte loop.
func TestRepeatLen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		n := 1 + rng.IntN(4)
		p := make([]byte, n+rng.IntN(40))
		for i := range p {
			if i < n || rng.IntN(12) == 0 {
				p[i] = byte(rng.IntN(3))
			} else {
				p[i] = p[i-n]
			}
		}
		from := n + rng.IntN(len(p)-n+1)
		want := 0
		for from+want < len(p) && p[from+want] == p[from+want-n] {
			want++
		}
		if got := repeatLen(p, from, n); got != want {
			t.Fatalf("%v from %d period %d: %d, want %d", p, from, n, got, want)
		}
	}
}

// FuzzFastPathsMatchTheParser is TestFastPathsMatchTheParser on any bytes,
// written in two pieces.
func FuzzFastPathsMatchTheParser(f *testing.F) {
	for i, s := range fastPathPieces {
		f.Add([]byte(s+"ab"+fastPathPieces[(i*7)%len(fastPathPieces)]), uint8(i))
	}
	f.Add([]byte("x\x1b[1;31mred\x1b[0m \x1b[38;5;9mA\x1b[0m────│\x1b[21mB\x1b[0;1mC"), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		fast, slow := New(5, 20, nil), New(5, 20, nil)
		fast.SetScrollback(20)
		slow.SetScrollback(20)
		cut := int(split) % (len(data) + 1)
		for _, p := range [][]byte{data[:cut], data[cut:]} {
			fast.Write(p)
			slow.writeViaParser(p)
		}
		checkRowsUsed(t, fast)
		if d := diffTerminals(fast, slow); d != "" {
			t.Fatalf("%q cut at %d: %s", data, cut, d)
		}
	})
}

// sgrPieces make SGR parameter strings: the forms sgrDirect reads and
// those it must leave to readStyle.
var sgrPieces = []string{"0", "1", "2", "3", "4", "5", "7", "9", "21", "22", "24", "27", "29", "31", "37", "38", "39",
	"41", "48", "49", "58", "59", "91", "107", "108", "5", "2", "255", "256", "300", "999", "1000", "00", "007",
	";", ";", ";", ";", ":", ""}

// TestSGRDirect holds sgrDirect to readStyle on the parameters the parser
// splits, for random strings of SGR parameters: where it reads them, the
// pen is the same; where it does not, it leaves the pen alone.
func TestSGRDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pens := []Style{{}, {Fg: IndexedColor(3), Attrs: AttrBold}, {Bg: RGBColor(1, 2, 3), Underline: UnderlineCurly, UnderlineColor: IndexedColor(9)}}
	ref, read := New(2, 2, nil), 0
	for range 60000 {
		var p []byte
		for range rng.IntN(9) {
			p = append(p, sgrPieces[rng.IntN(len(sgrPieces))]...)
		}
		checkSGRDirect(t, ref, p, pens[rng.IntN(len(pens))], &read)
	}
	if read < 10000 {
		t.Fatalf("sgrDirect read only %d of the strings", read)
	}
}

// checkSGRDirect compares sgrDirect on p with the parser's path from pen,
// on ref.
func checkSGRDirect(t *testing.T, ref *Terminal, p []byte, pen Style, read *int) {
	t.Helper()
	ref.scr.cur.pen = pen
	ref.writeViaParser([]byte("\x1b[" + string(p) + "m"))
	got := pen
	if !sgrDirect(p, &got) {
		if got != pen {
			t.Fatalf("%q: refused but changed the pen", p)
		}
		return
	}
	*read++
	if want := ref.scr.cur.pen; got != want {
		t.Fatalf("%q from %+v: %+v, the parser's path %+v", p, pen, got, want)
	}
}

// FuzzSGRDirect is TestSGRDirect on any parameter bytes.
func FuzzSGRDirect(f *testing.F) {
	for _, s := range []string{"0", "38;5;300", "48;2;1;2;3", "1;;31", "4:3", "38;2;1;2", "21", "58;5;9;4"} {
		f.Add([]byte(s))
	}
	ref, read := New(2, 2, nil), 0
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, c := range p {
			if c < '0' || c > ';' {
				return // not what sgrKey passes on
			}
		}
		checkSGRDirect(t, ref, p, Style{Fg: IndexedColor(2), Attrs: AttrItalic}, &read)
	})
}

// redrawPieces are what a full-screen program writes around each row it
// redraws: CUP in every form (missing, zero, huge and extra parameters,
// under DECOM with margins), EL in every form on default and coloured
// backgrounds, and SGRs that sgrDirect reads or leaves to readStyle.
var redrawPieces = []string{
	"\x1b[H", "\x1b[;H", "\x1b[0;0H", "\x1b[3;7H", "\x1b[2H", "\x1b[;9H", "\x1b[99;99H", "\x1b[1;2;3H",
	"\x1b[2147483647;1H", "\x1b[2:3H", "\x1b[?6h", "\x1b[?6l", "\x1b[2;4r", "\x1b[r", "\x1b[?69h", "\x1b[3;9s",
	"\x1b[K", "\x1b[0K", "\x1b[1K", "\x1b[2K", "\x1b[3K", "\x1b[2;1K", "\x1b[2:1K", "\x1b[?2K",
	"\x1b[44m", "\x1b[49m", "\x1b[0m", "\x1b[m", "\x1b[1;31m", "\x1b[38;5;200m", "\x1b[48;2;1;2;3m",
	"\x1b[38;2;300;2;3m", "\x1b[58;5;9m", "\x1b[7m", "\x1b[27m", "\x1b[1;3;4;7;9m", "\x1b[107m", "\x1b[0099m",
	"abc", "x", " ", "中", "é", "\r\n", "\b", "\x1b[5G", "\x1b[2A",
}

// TestRedrawsMatchTheParser holds the direct handling of CUP, EL and SGR
// (dispatchCSI, sgrDirect) to the parser's path on random redraws.
func TestRedrawsMatchTheParser(t *testing.T) {
	for seed := range uint64(2000) {
		rng := rand.New(rand.NewPCG(seed, 0x4ed4a))
		rows, cols := 1+rng.IntN(10), 1+rng.IntN(30)
		fast, slow := New(rows, cols, nil), New(rows, cols, nil)
		var stream []byte
		for range 1 + rng.IntN(4) {
			chunk := randomChunk(rng, redrawPieces, 60)
			stream = append(stream, chunk...)
			fast.Write(chunk)
			slow.writeViaParser(chunk)
		}
		checkRowsUsed(t, fast)
		if d := diffTerminals(fast, slow); d != "" {
			t.Fatalf("seed %d, %dx%d, stream %q: %s", seed, rows, cols, stream, d)
		}
	}
}

// TestSGRDirectColours holds sgrDirect's read of a colour alone (38, 48
// or 58 with 5;N or 2;R;G;B and nothing else) to the parser's path, with
// the values at their edges, forms it must leave to the loop or refuse,
// and on pens that differ in every field.
func TestSGRDirectColours(t *testing.T) {
	pens := []Style{{}, {Fg: IndexedColor(3), Bg: RGBColor(9, 8, 7), UnderlineColor: IndexedColor(1), Attrs: AttrBold, Underline: UnderlineCurly}}
	values := []string{"0", "7", "99", "255", "256", "999", "1000", "", "00", "012"}
	ref, read := New(2, 2, nil), 0
	for _, sgr := range []string{"38", "48", "58", "39", "28", "68"} {
		for _, v := range values {
			for _, w := range []string{"0", "255", "300"} {
				for _, p := range []string{
					sgr + ";5;" + v, sgr + ";2;" + v + ";" + w + ";" + v, sgr + ";2;" + v + ";" + w,
					sgr + ";5;" + v + ";1", sgr + ";5;" + v + ";" + w, sgr + ";2;" + w + ";" + w + ";" + v + ";" + v,
					sgr + ";3;" + v, sgr + ";5:" + v, sgr + ":5;" + v, sgr + ";5;" + v + ";",
				} {
					for _, pen := range pens {
						checkSGRDirect(t, ref, []byte(p), pen, &read)
					}
				}
			}
		}
	}
	if read < 500 {
		t.Fatalf("sgrDirect read only %d of the colours", read)
	}
}
