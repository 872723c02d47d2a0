package screentext

import (
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	got := Escape("a\x1b[31mb\r\n\t\x07\x7f\u009b中文\xff")
	if want := `a\x1b[31mb\r\n\t\x07\x7f\u009b中文\xff`; got != want {
		t.Fatalf("Escape = %q, want %q", got, want)
	}
}

func TestRows(t *testing.T) {
	for _, c := range []struct {
		lines []string
		tail  int
		want  string
	}{
		{[]string{"$ ls", "a\tb", "", ""}, 0, "\t  0|$ ls\n\t  1|a\\tb\n\t   (rows 2-3 blank)\n"},
		{[]string{"1", "2", "3", "4", ""}, 2, "\t   (rows 0-1 not shown)\n\t  2|3\n\t  3|4\n\t   (rows 4-4 blank)\n"},
		{[]string{"", ""}, 5, "\t   (rows 0-1 blank)\n"},
		{[]string{"x"}, 5, "\t  0|x\n"},
	} {
		var b strings.Builder
		Rows(&b, c.lines, c.tail)
		if b.String() != c.want {
			t.Errorf("Rows(%q, %d) = %q, want %q", c.lines, c.tail, b.String(), c.want)
		}
	}
}
