package ptywright

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"ptywright/internal/vtcore"
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
	// line returns a row's text: wide continuations skipped, trailing
	// spaces trimmed.
	line(row int) string
	cursor() (row, col int)
	modes() termModes
	// setScrollback sets how many rows that leave the top of the main
	// screen are kept (0: none).
	setScrollback(rows int)
	// scrollback returns the kept rows' text, oldest first, trailing
	// spaces trimmed.
	scrollback() []string
	// close stops the engine's reply delivery; write stays usable.
	close()
}

// engineCell is one grid cell copied out of the engine by value.
type engineCell struct {
	text  string // "" for the continuation of a wide cell
	width int    // 0 for a continuation, 2 for a wide cell
	style CellStyle
}

// termModes are the terminal state bits a snapshot reports besides the grid.
type termModes struct {
	title             string
	cursorVisible     bool
	altScreen         bool
	applicationCursor bool
	applicationKeypad bool
	bracketedPaste    bool
}

// Engine names the terminal emulator that parses a Screen's bytes.
type Engine string

const (
	// EngineVTCore is ptywright's own emulator (internal/vtcore), the
	// default: held to tmux and xterm by the fidelity tests, and 60-150x
	// faster than x/vt.
	EngineVTCore Engine = "vtcore"
	// EngineXVT is charmbracelet/x/vt, the emulator of the design card and
	// the oracle of vtcore's differential tests. It departs from tmux and
	// xterm where vtcore does not (see engine_xvt.go and README.md): a
	// resize cuts rows at the bottom, the alternate screen homes the cursor,
	// widths are grapheme widths whatever mode 2027 says, no title stack,
	// no SGR 21; and it parses 0.5-10 MB/s. A panic inside x/vt is
	// recovered and the bytes that caused it are dropped.
	EngineXVT Engine = "xvt"
)

// ErrInvalidEngine is wrapped by the error an unknown Engine name gives.
var ErrInvalidEngine = errors.New("invalid engine")

// Validate reports an unknown engine name; "" is the default engine.
func (e Engine) Validate() error {
	switch e {
	case "", EngineVTCore, EngineXVT:
		return nil
	}
	return &FieldError{Field: "engine", Reason: fmt.Sprintf("must be %q or %q, got %q", EngineVTCore, EngineXVT, string(e)), Err: ErrInvalidEngine}
}

// newEngine returns the default engine. onReply must not block (nil drops
// replies); it is called from write.
func newEngine(rows, cols int, onReply func([]byte)) engine {
	return newVTCoreEngine(rows, cols, onReply)
}

// newEngineOf returns the named engine (validated by the caller).
func newEngineOf(kind Engine, rows, cols int, onReply func([]byte)) engine {
	if kind == EngineXVT {
		e := newVTEngine(rows, cols, onReply)
		e.recoverPanics = true
		return e
	}
	return newVTCoreEngine(rows, cols, onReply)
}

// vtcoreEngine implements engine over internal/vtcore, which answers queries
// synchronously from write: no pipe, no goroutine.
type vtcoreEngine struct {
	term *vtcore.Terminal
	buf  []byte
}

func newVTCoreEngine(rows, cols int, onReply func([]byte)) *vtcoreEngine {
	e := &vtcoreEngine{term: vtcore.New(rows, cols, onReply)}
	e.term.SetScrollback(DefaultScrollback)
	return e
}

func (e *vtcoreEngine) setScrollback(rows int) { e.term.SetScrollback(rows) }

func (e *vtcoreEngine) scrollback() []string {
	out := make([]string, e.term.ScrollbackLen())
	for i := range out {
		b := e.term.AppendScrollbackText(e.buf[:0], i)
		e.buf = b
		out[i] = string(bytes.TrimRight(b, " "))
	}
	return out
}

func (e *vtcoreEngine) write(p []byte) { e.term.Write(p) }

func (e *vtcoreEngine) resize(rows, cols int) { e.term.Resize(rows, cols) }

func (e *vtcoreEngine) cell(row, col int) engineCell {
	c := e.term.Cell(row, col)
	return engineCell{text: e.term.Text(c), width: c.Width(), style: cellStyle(c.Style)}
}

func (e *vtcoreEngine) line(row int) string {
	b := e.term.AppendRowText(e.buf[:0], row)
	end := len(b)
	for end > 0 && b[end-1] == ' ' {
		end--
	}
	e.buf = b
	return string(b[:end])
}

func (e *vtcoreEngine) cursor() (row, col int) { return e.term.Cursor() }

func (e *vtcoreEngine) modes() termModes {
	t := e.term
	return termModes{
		title:             t.Title(),
		cursorVisible:     t.CursorVisible(),
		altScreen:         t.AltScreen(),
		applicationCursor: t.ApplicationCursor(),
		applicationKeypad: t.ApplicationKeypad(),
		bracketedPaste:    t.BracketedPaste(),
	}
}

func (e *vtcoreEngine) close() { e.term.SetReplyHandler(nil) }

func cellStyle(s vtcore.Style) CellStyle {
	return CellStyle{
		Foreground:     colorName(s.Fg),
		Background:     colorName(s.Bg),
		Bold:           s.Attrs&vtcore.AttrBold != 0,
		Dim:            s.Attrs&vtcore.AttrFaint != 0,
		Italic:         s.Attrs&vtcore.AttrItalic != 0,
		Underline:      s.Underline != vtcore.UnderlineNone,
		UnderlineStyle: underlineStyles[min(int(s.Underline), len(underlineStyles)-1)],
		Inverse:        s.Attrs&vtcore.AttrReverse != 0,
		Strikethrough:  s.Attrs&vtcore.AttrStrikethrough != 0,
		Blink:          s.Attrs&(vtcore.AttrBlink|vtcore.AttrRapidBlink) != 0,
	}
}

// underlineStyles names the underline styles in SGR 4:n order.
var underlineStyles = [...]string{"", "single", "double", "curly", "dotted", "dashed"}

// indexedNames holds "idx:N" for the palette so cells do not format them.
var indexedNames = func() (n [256]string) {
	for i := range n {
		n[i] = "idx:" + strconv.Itoa(i)
	}
	return n
}()

// colorName renders a colour in the wire vocabulary: default, idx:N or
// rgb:R:G:B.
func colorName(c vtcore.Color) string {
	if c.IsDefault() {
		return "default"
	}
	if i, ok := c.Index(); ok {
		return indexedNames[i]
	}
	return c.String()
}
