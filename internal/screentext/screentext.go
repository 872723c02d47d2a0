// Package screentext renders screen rows and output for a person reading an
// error or a test failure: control characters escaped, rows numbered. The
// root package's WaitError and package ptywrighttest share it, so a failed
// wait reads the same wherever it is reported.
package screentext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes control characters visible, Go-style: ESC is \x1b, CR \r,
// tab \t, newline \n, other C0 and C1 controls and DEL \xNN or \uNNNN;
// invalid UTF-8 bytes are \xNN. Everything else, wide characters included,
// is kept as is.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Rows writes lines as numbered rows, each indented by a tab, up to the last
// non-blank one, and a note of the blank rows after it. When tail is above
// zero only the last tail rows up to the last non-blank one are written,
// after a note of the rows left out above them.
func Rows(b *strings.Builder, lines []string, tail int) {
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	start := 0
	if tail > 0 && end > tail {
		start = end - tail
		fmt.Fprintf(b, "\t   (rows 0-%d not shown)\n", start-1)
	}
	for i, l := range lines[start:end] {
		fmt.Fprintf(b, "\t%3d|%s\n", start+i, Escape(l))
	}
	if end < len(lines) {
		fmt.Fprintf(b, "\t   (rows %d-%d blank)\n", end, len(lines)-1)
	}
}
