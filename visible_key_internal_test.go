package ptywright

import "testing"

// TestVisibleKeySeesWhatAPersonSees: the key of the visible screen stays
// when a frame is redrawn as it was, and changes with any row's text
// (text moved to the next row too), the cursor, a mode, the title and the
// number of rows.
func TestVisibleKeySeesWhatAPersonSees(t *testing.T) {
	scr, err := NewScreen(Size{Rows: 4, Cols: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer scr.Close()
	write := func(s string) uint64 {
		t.Helper()
		if _, err := scr.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		return scr.visibleKey()
	}
	frame := "\x1b[H\x1b[2Jab\r\ncd\x1b[1;1H"
	base := write(frame)
	if got := write(frame); got != base {
		t.Fatal("the same frame redrawn changed the key")
	}
	seen := map[uint64]string{base: "frame"}
	for _, c := range []struct{ name, out string }{
		{"a row's text", "\x1b[H\x1b[2Jab\r\nce\x1b[1;1H"},
		{"text moved down a row", "\x1b[H\x1b[2J\r\nab\r\ncd\x1b[1;1H"},
		{"the cursor", "\x1b[H\x1b[2Jab\r\ncd\x1b[1;2H"},
		{"the cursor hidden", "\x1b[H\x1b[2Jab\r\ncd\x1b[1;1H\x1b[?25l"},
		{"the title", "\x1b]2;t\x07"},
	} {
		key := write(c.out)
		if was, ok := seen[key]; ok {
			t.Fatalf("%s: the key is the one of %s", c.name, was)
		}
		seen[key] = c.name
	}
	before := scr.visibleKey()
	if err := scr.Resize(Size{Rows: 5, Cols: 10}); err != nil {
		t.Fatal(err)
	}
	if scr.visibleKey() == before {
		t.Fatal("one more (empty) row left the key as it was")
	}
}
