package ptywright

import (
	"image/color"
	"io"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// vtEngine implements engine over charmbracelet/x/vt (EngineXVT). It was the
// engine before internal/vtcore, stays selectable, and is the oracle of the
// differential tests (engine_diff_test.go): vtcore must build the same grid,
// cursor and modes from the same bytes, except where x/vt is documented to
// be wrong (internal/vtcore/doc.go lists where, which is where this engine
// departs from tmux and xterm).
type vtEngine struct {
	emu   *vt.Emulator
	state termModes
	done  chan struct{} // closed when the reply pump has stopped
	// cursorMoved, when set, is called whenever x/vt moves the cursor or
	// switches screens, so the differential tests can catch it leaving the
	// grid even when a later move brings it back.
	cursorMoved func()
	// recoverPanics, set when the engine serves a Screen, turns a panic of
	// x/vt on hostile input into a dropped write, so the session survives;
	// the differential tests leave it unset to see the panic.
	recoverPanics bool
}

// newVTEngine starts the emulator and its reply pump. x/vt writes replies to
// an unbuffered pipe and blocks the parser until someone reads them, so a
// goroutine must drain it for as long as the engine lives; onReply must not
// block (nil drops replies).
func newVTEngine(rows, cols int, onReply func([]byte)) *vtEngine {
	e := &vtEngine{
		emu:   vt.NewEmulator(cols, rows),
		state: termModes{cursorVisible: true},
		done:  make(chan struct{}),
	}
	e.emu.SetCallbacks(vt.Callbacks{
		Title:            func(t string) { e.state.title = t },
		CursorVisibility: func(v bool) { e.state.cursorVisible = v },
		AltScreen: func(on bool) {
			e.state.altScreen = on
			e.moved()
		},
		CursorPosition: func(_, _ uv.Position) { e.moved() },
		EnableMode:     func(m ansi.Mode) { e.setMode(m, true) },
		DisableMode:    func(m ansi.Mode) { e.setMode(m, false) },
	})
	e.emu.SetScrollbackSize(DefaultScrollback)
	go e.pumpReplies(onReply)
	return e
}

func (e *vtEngine) setScrollback(rows int) { e.emu.SetScrollbackSize(rows) }

func (e *vtEngine) scrollback() []string {
	lines := e.emu.Scrollback().Lines()
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, c := range l {
			switch {
			case c.Width == 0:
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func (e *vtEngine) moved() {
	if e.cursorMoved != nil {
		e.cursorMoved()
	}
}

func (e *vtEngine) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeCursorKeys:
		e.state.applicationCursor = on
	case ansi.ModeNumericKeypad:
		e.state.applicationKeypad = on
	case ansi.ModeBracketedPaste:
		e.state.bracketedPaste = on
	case ansi.ModeTextCursorEnable:
		e.state.cursorVisible = on
	}
}

// pumpReplies drains the emulator's reply pipe until close.
func (e *vtEngine) pumpReplies(onReply func([]byte)) {
	defer close(e.done)
	buf := make([]byte, 4096)
	for {
		n, err := e.emu.Read(buf)
		if n > 0 && onReply != nil {
			onReply(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			return
		}
	}
}

func (e *vtEngine) write(p []byte) {
	if e.recoverPanics {
		defer func() { _ = recover() }() // x/vt can index out of range on odd input; keep the session.
	}
	_, _ = e.emu.Write(p)
}

func (e *vtEngine) line(row int) string {
	var b strings.Builder
	for c := range e.emu.Width() {
		cell := e.cell(row, c)
		if cell.width == 0 {
			continue
		}
		b.WriteString(cell.text)
	}
	return strings.TrimRight(b.String(), " ")
}

func (e *vtEngine) resize(rows, cols int) {
	if e.recoverPanics {
		defer func() { _ = recover() }() // As in write.
	}
	e.emu.Resize(cols, rows)
}

func (e *vtEngine) cursor() (row, col int) {
	pos := e.emu.CursorPosition()
	return pos.Y, pos.X
}

func (e *vtEngine) modes() termModes { return e.state }

func (e *vtEngine) cell(row, col int) engineCell {
	c := e.emu.CellAt(col, row)
	if c == nil {
		return engineCell{text: " ", width: 1, style: defaultCellStyle()}
	}
	out := engineCell{text: c.Content, width: c.Width, style: convertStyle(&c.Style)}
	if out.text == "" && out.width > 0 {
		out.text = " "
	}
	return out
}

// close ends the reply pump. It closes the pipe's writer end directly rather
// than calling Emulator.Close, whose unguarded flag would race with the
// pump's Read.
func (e *vtEngine) close() {
	if pw, ok := e.emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF) // Best effort: the pipe cannot fail to close.
	}
	<-e.done
}

func convertStyle(s *uv.Style) CellStyle {
	return CellStyle{
		Foreground:     xvtColorName(s.Fg),
		Background:     xvtColorName(s.Bg),
		Bold:           s.Attrs&uv.AttrBold != 0,
		Dim:            s.Attrs&uv.AttrFaint != 0,
		Italic:         s.Attrs&uv.AttrItalic != 0,
		Underline:      s.Underline != uv.UnderlineNone,
		UnderlineStyle: underlineStyles[min(int(s.Underline), len(underlineStyles)-1)],
		Inverse:        s.Attrs&uv.AttrReverse != 0,
		Strikethrough:  s.Attrs&uv.AttrStrikethrough != 0,
		Blink:          s.Attrs&(uv.AttrBlink|uv.AttrRapidBlink) != 0,
	}
}

// colorName renders a colour in the wire vocabulary: default, idx:N or
// rgb:R:G:B.
func xvtColorName(c color.Color) string {
	switch v := c.(type) {
	case nil:
		return "default"
	case ansi.BasicColor:
		return "idx:" + strconv.Itoa(int(v))
	case ansi.IndexedColor:
		return "idx:" + strconv.Itoa(int(v))
	default:
		r, g, b, a := c.RGBA()
		if a == 0 {
			return "default"
		}
		return "rgb:" + strconv.Itoa(int(r>>8)) + ":" + strconv.Itoa(int(g>>8)) + ":" + strconv.Itoa(int(b>>8))
	}
}
