package ptywrighttest

import (
	"strings"

	"ptywright/internal/screentext"
)

// escapeControls makes control characters visible, Go-style (see
// screentext.Escape).
func escapeControls(s string) string { return screentext.Escape(s) }

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
