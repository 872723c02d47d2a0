package vtcore

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// look reads every row as engine.Lines does: a row's kept text when it has
// one, its cells otherwise, and then keeps them all. It returns the texts
// and how many were kept ones.
func look(term *Terminal) (texts []string, kept int) {
	texts = make([]string, term.rows)
	for r := range term.rows {
		if s, ok := term.KeptRowText(r); ok {
			texts[r] = s
			kept++
		} else {
			texts[r] = string(term.AppendRowTextTrimmed(nil, r))
		}
	}
	for r, s := range texts {
		term.KeepRowText(r, s)
	}
	return texts, kept
}

// TestKeptRowTextsMatchTheCells: a kept text is only ever returned while it
// is the row's text. Random streams of every kind of write (printing on
// every path, erasures, insertions and deletions of cells and lines,
// scrolling regions and margins, the alternate screen, the scrollback
// giving rows back) cut into random writes, with resizes, each followed
// by a look, or not, whose every row must read as its cells.
func TestKeptRowTextsMatchTheCells(t *testing.T) {
	pieces := append(append([]string{}, fastPathPieces...), redrawPieces...)
	found := 0
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 0x7e47))
		rows, cols := 1+rng.IntN(8), 1+rng.IntN(30)
		term := New(rows, cols, nil)
		term.SetScrollback(rng.IntN(20))
		var stream []byte
		for range 1 + rng.IntN(12) {
			chunk := randomChunk(rng, pieces, 12)
			stream = append(stream, chunk...)
			term.Write(chunk)
			if rng.IntN(8) == 0 {
				rows, cols = 1+rng.IntN(8), 1+rng.IntN(30)
				term.Resize(rows, cols)
				stream = fmt.Appendf(stream, "<resize %dx%d>", rows, cols)
			}
			if rng.IntN(3) == 0 {
				continue // several writes between two looks
			}
			texts, kept := look(term)
			found += kept
			for r, got := range texts {
				if want := string(term.AppendRowTextTrimmed(nil, r)); got != want {
					t.Fatalf("seed %d, row %d reads %q, its cells %q; stream %q", seed, r, got, want, stream)
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no look found a kept text")
	}
}

// TestKeptRowTextsFollowScrolling: the rows a line feed or a scroll moves
// are found by the next look, so only the new row is read from its cells.
func TestKeptRowTextsFollowScrolling(t *testing.T) {
	term := New(5, 20, nil)
	term.SetScrollback(100)
	for i := range 10 {
		term.Write(fmt.Appendf(nil, "line %d\r\n", i))
	}
	look(term)
	term.Write([]byte("line 10\r\n"))
	if texts, kept := look(term); kept != 3 || texts[3] != "line 10" {
		t.Fatalf("after a line feed: %d kept, rows %q; want the 3 rows above the new line kept", kept, texts)
	}
	term.Write([]byte("\x1b[2T")) // scroll down 2: rows move the other way
	if texts, kept := look(term); kept != 3 || texts[3] != "line 8" {
		t.Fatalf("after scrolling down: %d kept, rows %q; want the 3 rows moved kept", kept, texts)
	}
	term.Write([]byte("\x1b[1;1Hx\x1b[3;1H\x1b[K"))
	if texts, kept := look(term); kept != 3 || texts[0] != "x" || texts[2] != "" {
		t.Fatalf("after writing rows 1 and 3: %d kept, rows %q", kept, texts)
	}
}
