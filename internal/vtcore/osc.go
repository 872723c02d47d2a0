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
				t.divergences++
			}
		}
	case 10, 11, 12, 110, 111, 112:
		t.handleDynamicColor(cmd, data)
	}
}

// handleDynamicColor sets, resets or reports a dynamic colour as x/vt does.
func (t *Terminal) handleDynamicColor(cmd int, data []byte) {
	parts := bytes.Split(data, []byte{';'})
	slot := map[int]*color.Color{10: &t.fgColor, 110: &t.fgColor, 11: &t.bgColor, 111: &t.bgColor, 12: &t.cursorColor, 112: &t.cursorColor}[cmd]
	def := map[int]color.Color{10: defaultFg, 110: defaultFg, 11: defaultBg, 111: defaultBg, 12: defaultCursor, 112: defaultCursor}[cmd]
	switch len(parts) {
	case 1:
		*slot = def
	case 2:
		arg := string(parts[1])
		if arg != "?" {
			if c := ansi.XParseColor(arg); c != nil {
				*slot = c
			}
			return
		}
		if cmd > 12 {
			return
		}
		c := *slot
		if c == nil {
			c = def
		}
		var seq string
		x := ansi.XRGBColor{Color: c}.String()
		switch cmd {
		case 10:
			seq = ansi.SetForegroundColor(x)
		case 11:
			seq = ansi.SetBackgroundColor(x)
		case 12:
			seq = ansi.SetCursorColor(x)
		}
		t.replyString(seq)
	}
}
