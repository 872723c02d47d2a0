package ptywright

import (
	"image/color"
	"io"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// engine is the seam between Screen and the terminal emulator that parses
// bytes into a grid. Screen serialises every call; implementations need no
// locking of their own. Keeping it this small lets the emulator be replaced
// or sped up without touching the public API.
type engine interface {
	// write parses p. Replies the terminal owes the program (DA, DSR, mode
	// reports) go to the reply sink given at construction.
	write(p []byte)
	resize(rows, cols int)
	// cell returns a copy of the cell at row, col (zero-based).
	cell(row, col int) engineCell
	cursor() (row, col int)
	modes() termModes
	// close stops the engine's reply delivery; write stays usable.
	close()
}

// engineCell is one grid cell copied out of the engine by value.
type engineCell struct {
	text  string // "" for the continuation of a wide cell
	width int    // 0 for a continuation, 2 for a wide cell
	style CellStyle
}

// termModes are the terminal state bits the emulator has no getters for, so
// they are tracked from its callbacks.
type termModes struct {
	title             string
	cursorVisible     bool
	altScreen         bool
	applicationCursor bool
	applicationKeypad bool
	bracketedPaste    bool
}

// vtEngine implements engine over charmbracelet/x/vt.
type vtEngine struct {
	emu   *vt.Emulator
	state termModes
	osc   oscFilter
	done  chan struct{} // closed when the reply pump has stopped
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
	// Screen exposes no scrollback, so keep the least x/vt allows (0 means
	// its default of 10000 lines). With the default, a flood of long lines
	// retains hundreds of MB, and once full every line feed shifts the
	// whole 10000-entry slice.
	e.emu.SetScrollbackSize(1)
	e.emu.SetCallbacks(vt.Callbacks{
		Title:            func(t string) { e.state.title = t },
		CursorVisibility: func(v bool) { e.state.cursorVisible = v },
		AltScreen:        func(on bool) { e.state.altScreen = on },
		EnableMode:       func(m ansi.Mode) { e.setMode(m, true) },
		DisableMode:      func(m ansi.Mode) { e.setMode(m, false) },
	})
	go e.pumpReplies(onReply)
	return e
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
	p = e.osc.filter(p, func(t string) { e.state.title = t })
	if len(p) > 0 {
		_, _ = e.emu.Write(p)
	}
}

func (e *vtEngine) resize(rows, cols int) { e.emu.Resize(cols, rows) }

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
		Foreground: colorName(s.Fg),
		Background: colorName(s.Bg),
		Bold:       s.Attrs&uv.AttrBold != 0,
		Dim:        s.Attrs&uv.AttrFaint != 0,
		Italic:     s.Attrs&uv.AttrItalic != 0,
		Underline:  s.Underline != uv.UnderlineNone,
		Inverse:    s.Attrs&uv.AttrReverse != 0,
	}
}

// colorName renders a colour in the wire vocabulary: default, idx:N or
// rgb:R:G:B.
func colorName(c color.Color) string {
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
