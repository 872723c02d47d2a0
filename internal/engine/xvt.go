package engine

import (
	"image/color"
	"io"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// XVT implements engine over charmbracelet/x/vt (EngineXVT). It was the
// engine before internal/vtcore, stays selectable, and is the oracle of the
// differential tests (diff_test.go): vtcore must build the same grid,
// cursor and modes from the same bytes, except where x/vt is documented to
// be wrong (internal/vtcore/doc.go lists where, which is where this engine
// departs from tmux and xterm).
type XVT struct {
	emu   *vt.Emulator
	state Modes
	done  chan struct{} // closed when the reply pump has stopped
	// CursorMoved, when set, is called whenever x/vt moves the cursor or
	// switches screens, so the differential tests can catch it leaving the
	// grid even when a later move brings it back.
	CursorMoved func()
	// RecoverPanics, set when the engine serves a Screen, turns a panic of
	// x/vt on hostile input into a dropped write, so the session survives;
	// the differential tests leave it unset to see the panic.
	RecoverPanics bool
}

// NewXVT starts the emulator and its reply pump. x/vt writes replies to
// an unbuffered pipe and blocks the parser until someone reads them, so a
// goroutine must drain it for as long as the engine lives; onReply must not
// block (nil drops replies).
func NewXVT(rows, cols int, onReply func([]byte)) *XVT {
	e := &XVT{
		emu:   vt.NewEmulator(cols, rows),
		state: Modes{CursorVisible: true},
		done:  make(chan struct{}),
	}
	e.emu.SetCallbacks(vt.Callbacks{
		Title:            func(t string) { e.state.Title = t },
		CursorVisibility: func(v bool) { e.state.CursorVisible = v },
		AltScreen: func(on bool) {
			e.state.AltScreen = on
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

// SetScrollback implements Engine.
func (e *XVT) SetScrollback(rows int) { e.emu.SetScrollbackSize(rows) }

// ScrollbackTail implements Engine.
func (e *XVT) ScrollbackTail(n int) []string {
	all := e.Scrollback()
	return all[max(0, len(all)-n):]
}

// Scrollback implements Engine.
func (e *XVT) Scrollback() []string {
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

func (e *XVT) moved() {
	if e.CursorMoved != nil {
		e.CursorMoved()
	}
}

func (e *XVT) setMode(m ansi.Mode, on bool) {
	switch m {
	case ansi.ModeCursorKeys:
		e.state.ApplicationCursor = on
	case ansi.ModeNumericKeypad:
		e.state.ApplicationKeypad = on
	case ansi.ModeBracketedPaste:
		e.state.BracketedPaste = on
	case ansi.ModeMouseX10, ansi.ModeMouseNormal, ansi.ModeMouseButtonEvent, ansi.ModeMouseAnyEvent:
		n := m.Mode()
		if on {
			e.state.MouseTracking = n
		} else if e.state.MouseTracking == n {
			e.state.MouseTracking = 0
		}
	case ansi.ModeMouseExtSgr:
		e.state.MouseSGR = on
	case ansi.ModeTextCursorEnable:
		e.state.CursorVisible = on
	}
}

// pumpReplies drains the emulator's reply pipe until close.
func (e *XVT) pumpReplies(onReply func([]byte)) {
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

// Write implements Engine.
func (e *XVT) Write(p []byte) {
	if e.RecoverPanics {
		defer func() { _ = recover() }() // x/vt can index out of range on odd input; keep the session.
	}
	_, _ = e.emu.Write(p)
}

// Line implements Engine.
func (e *XVT) Line(row int) string {
	var b strings.Builder
	for c := range e.emu.Width() {
		cell := e.Cell(row, c)
		if cell.Width == 0 {
			continue
		}
		b.WriteString(cell.Text)
	}
	return strings.TrimRight(b.String(), " ")
}

// Lines implements Engine.
func (e *XVT) Lines() (lines []string, plain string) {
	lines = make([]string, e.emu.Height())
	end := 0
	for r := range lines {
		lines[r] = e.Line(r)
		if lines[r] != "" {
			end = r + 1
		}
	}
	return lines, strings.Join(lines[:end], "\n")
}

// Resize implements Engine.
func (e *XVT) Resize(rows, cols int) {
	if e.RecoverPanics {
		defer func() { _ = recover() }() // As in write.
	}
	e.emu.Resize(cols, rows)
}

// Cursor implements Engine.
func (e *XVT) Cursor() (row, col int) {
	pos := e.emu.CursorPosition()
	return pos.Y, pos.X
}

// Modes implements Engine.
func (e *XVT) Modes() Modes { return e.state }

// Cell implements Engine.
func (e *XVT) Cell(row, col int) Cell {
	c := e.emu.CellAt(col, row)
	if c == nil {
		return Cell{Text: " ", Width: 1, Style: DefaultStyle()}
	}
	out := Cell{Text: c.Content, Width: c.Width, Style: convertStyle(&c.Style)}
	if out.Text == "" && out.Width > 0 {
		out.Text = " "
	}
	return out
}

// Close ends the reply pump. It closes the pipe's writer end directly rather
// than calling Emulator.Close, whose unguarded flag would race with the
// pump's Read.
func (e *XVT) Close() {
	if pw, ok := e.emu.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF) // Best effort: the pipe cannot fail to close.
	}
	<-e.done
}

func convertStyle(s *uv.Style) Style {
	return Style{
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
