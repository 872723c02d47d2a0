package vtcore

import (
	"bytes"
	"image/color"

	"github.com/charmbracelet/x/ansi"
)

// Default dynamic colours, as x/vt reports them to OSC 10, 11 and 12.
var (
	defaultFg     color.Color = color.White
	defaultBg     color.Color = color.Black
	defaultCursor color.Color = color.White
)

// handleOsc is the parser's OSC callback: titles and the dynamic colour
// queries. Other commands (hyperlinks, working directory, clipboard...) are
// consumed and ignored.
func (t *Terminal) handleOsc(cmd int, data []byte) {
	t.flushGrapheme()
	switch cmd {
	case 0, 2:
		// x/vt ignores a title that holds a ';' (it wants exactly two
		// fields); like xterm, everything after the first ';' is the title.
		if _, title, ok := bytes.Cut(data, []byte{';'}); ok {
			t.title = string(title)
			if bytes.IndexByte(title, ';') >= 0 {
				t.diverge()
			}
		}
	case 10, 11, 12, 110, 111, 112:
		t.handleDynamicColor(cmd, data)
	}
}

// handleDynamicColor sets, resets or reports a dynamic colour as x/vt does.
func (t *Terminal) handleDynamicColor(cmd int, data []byte) {
	var slot *color.Color
	var def color.Color
	var report func(string) string
	switch cmd {
	case 10, 110:
		slot, def, report = &t.fgColor, defaultFg, ansi.SetForegroundColor
	case 11, 111:
		slot, def, report = &t.bgColor, defaultBg, ansi.SetBackgroundColor
	default:
		slot, def, report = &t.cursorColor, defaultCursor, ansi.SetCursorColor
	}
	parts := bytes.Split(data, []byte{';'})
	switch {
	case len(parts) == 1:
		*slot = def
	case len(parts) == 2 && string(parts[1]) == "?":
		if cmd > 12 {
			return
		}
		c := *slot
		if c == nil {
			c = def
		}
		t.replyString(report(ansi.XRGBColor{Color: c}.String()))
	case len(parts) == 2:
		if c := ansi.XParseColor(string(parts[1])); c != nil {
			*slot = c
		}
	}
}
