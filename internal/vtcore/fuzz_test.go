package vtcore_test

import (
	"testing"

	"ptywright/internal/vtcore"
)

// FuzzWrite feeds arbitrary bytes, in two writes around a resize, and checks
// that the terminal never panics and keeps its cursor and cells in the grid.
// Loops driven by parameters are bounded, so a run also shows it does not
// hang on huge counts.
func FuzzWrite(f *testing.F) {
	seeds := []string{
		"hello\r\nworld",
		"\x1b[2J\x1b[H\x1b[1;31mred\x1b[m",
		"\x1b[?1049h\x1b[3;20r\x1b[?6h\x1b[5;5H中文\x1b[2@\x1b[3P\x1b[?1049l",
		"\x1b[?69h\x1b[5;40s\x1b[2;10r\x1b[L\x1b[M\x1b[S\x1b[T\x1bD\x1bM\x1bE",
		"x\x1b[2147483646b\x1b[99999999999999999999A\x1b[4294967295@",
		"\x1b]0;title\a\x1b]10;?\x1b\\\x1bP1$r\x1b\\\x1b_apc\x1b\\",
		"e\u0301👩\u200d💻🇫🇷❤\ufe0f\x0e\x1b)0lqk\x0f\x1b[4hab\x1b[4l",
		"\x1b7\x1b[99;99H\x1b8\x1b[6n\x1b[5n\x1b[c\x1b[>c\x1b[?2004$p",
		"\xc3\x28\xe2\x82\x28\xf0\x28\x8c\xbc\x9b2J\x9d0;t\x9c\x8e\x84\x85\x88\x8d",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(24), uint8(80), uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, data []byte, rows, cols, split uint8) {
		r, c := 1+int(rows)%40, 1+int(cols)%120
		term := vtcore.New(r, c, func([]byte) {})
		cut := 0
		if len(data) > 0 {
			cut = int(split) % (len(data) + 1)
		}
		term.Write(data[:cut])
		check(t, term)
		term.Resize(1+int(split)%30, 1+int(rows^cols)%100)
		check(t, term)
		term.Write(data[cut:])
		check(t, term)
		term.WriteString("\x1b[?1049l") // back to the main screen, with its own cursor
		check(t, term)
	})
}

func check(t *testing.T, term *vtcore.Terminal) {
	t.Helper()
	rows, cols := term.Size()
	row, col := term.Cursor()
	if row < 0 || row >= rows || col < 0 || col >= cols {
		t.Fatalf("cursor at row %d col %d outside %dx%d", row, col, rows, cols)
	}
	for r := range rows {
		for c := range cols {
			cell := term.Cell(r, c)
			if w := cell.Width(); w < 0 || w > 2 {
				t.Fatalf("cell row %d col %d has width %d", r, c, w)
			}
			_ = term.Text(cell)
		}
		_ = term.AppendRowText(nil, r)
	}
}
