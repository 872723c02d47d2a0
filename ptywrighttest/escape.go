package ptywrighttest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// escapeControls makes control characters visible, Go-style: ESC is \x1b,
// CR \r, tab \t, newline \n, other C0 and C1 controls and DEL \xNN or
// \uNNNN; invalid UTF-8 bytes are \xNN. Everything else, wide characters
// included, is kept as is.
func escapeControls(s string) string {
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

// indentEscaped escapes text and breaks it after each escaped newline, each
// line indented, so a transcript reads as it printed.
func indentEscaped(s, indent string) string {
	esc := escapeControls(s)
	lines := strings.SplitAfter(esc, `\n`)
	var b strings.Builder
	for _, l := range lines {
		if l == "" {
			continue
		}
		b.WriteString(indent)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
