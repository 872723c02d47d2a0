// Package engine is the seam between ptywright's Screen and the terminal
// emulator that parses a program's bytes into a grid. Two emulators sit
// behind it: internal/vtcore (ptywright's own, the default) and
// charmbracelet/x/vt (selectable, and the oracle of vtcore's differential
// tests, which live here beside the adapters they compare).
//
// The root package chooses one by its public Engine name and converts
// Cell and Style into its own Cell and CellStyle; nothing here is part of
// the public API.
package engine

import (
	"bytes"
	"strconv"

	"ptywright/internal/vtcore"
)

// DefaultScrollback is how many rows that leave the top of the main screen
// a new engine keeps until SetScrollback says otherwise.
const DefaultScrollback = 3000

// Engine parses bytes into a grid. The caller serialises every call;
// implementations need no locking of their own. Keeping it this small lets
// the emulator be replaced or sped up without touching the public API.
type Engine interface {
	// Write parses p. Replies the terminal owes the program (DA, DSR, mode
	// reports) go to the reply sink given at construction.
	Write(p []byte)
	Resize(rows, cols int)
	// Cell returns a copy of the cell at row, col (zero-based).
	Cell(row, col int) Cell
	// Line returns a row's text: wide continuations skipped, trailing
	// spaces trimmed.
	Line(row int) string
	// Lines returns every row's text as Line does, and plain, the rows
	// joined by "\n" with the trailing empty rows left out.
	Lines() (lines []string, plain string)
	Cursor() (row, col int)
	// UsedCols returns how many columns of row hold text: one past its
	// last cell that is not blank (a wide character counts both).
	UsedCols(row int) int
	Modes() Modes
	// SetScrollback sets how many rows that leave the top of the main
	// screen are kept (0: none).
	SetScrollback(rows int)
	// Scrollback returns the kept rows' text, oldest first, trailing
	// spaces trimmed.
	Scrollback() []string
	// ScrollbackTail returns the newest n kept rows as Scrollback does
	// (fewer when fewer are kept), oldest first.
	ScrollbackTail(n int) []string
	// Close stops the engine's reply delivery; Write stays usable.
	Close()
}

// Cell is one grid cell copied out of the engine by value.
type Cell struct {
	Text  string // "" for the continuation of a wide cell
	Width int    // 0 for a continuation, 2 for a wide cell
	Style Style
}

// Style is a cell's rendition in the wire vocabulary. Its fields are those
// of the root package's CellStyle, which converts from it directly.
type Style struct {
	Foreground     string
	Background     string
	Bold           bool
	Dim            bool
	Italic         bool
	Underline      bool
	UnderlineStyle string
	Inverse        bool
	Strikethrough  bool
	Blink          bool
}

// DefaultStyle is the rendition of a cell nothing has styled.
func DefaultStyle() Style { return Style{Foreground: "default", Background: "default"} }

// Modes are the terminal state bits a snapshot reports besides the grid.
type Modes struct {
	Title             string
	CursorVisible     bool
	AltScreen         bool
	ApplicationCursor bool
	ApplicationKeypad bool
	BracketedPaste    bool
	// MouseTracking is the mouse tracking mode on (9, 1000, 1002, 1003),
	// 0 for none; MouseSGR is mode 1006 (SGR reports).
	MouseTracking int
	MouseSGR      bool
}

// VTCore implements Engine over internal/vtcore, which answers queries
// synchronously from Write: no pipe, no goroutine.
type VTCore struct {
	term *vtcore.Terminal
	buf  []byte
}

// NewVTCore returns a vtcore engine. onReply must not block (nil drops
// replies); it is called from Write.
func NewVTCore(rows, cols int, onReply func([]byte)) *VTCore {
	e := &VTCore{term: vtcore.New(rows, cols, onReply)}
	e.term.SetScrollback(DefaultScrollback)
	return e
}

// Terminal returns the emulator itself, for the differential tests.
func (e *VTCore) Terminal() *vtcore.Terminal { return e.term }

// SetScrollback implements Engine.
func (e *VTCore) SetScrollback(rows int) { e.term.SetScrollback(rows) }

// Scrollback implements Engine.
func (e *VTCore) Scrollback() []string {
	out := make([]string, e.term.ScrollbackLen())
	for i := range out {
		b := e.term.AppendScrollbackText(e.buf[:0], i)
		e.buf = b
		out[i] = string(bytes.TrimRight(b, " "))
	}
	return out
}

// ScrollbackTail implements Engine.
func (e *VTCore) ScrollbackTail(n int) []string {
	total := e.term.ScrollbackLen()
	out := make([]string, min(n, total))
	for i := range out {
		e.buf = e.term.AppendScrollbackText(e.buf[:0], total-len(out)+i)
		out[i] = string(bytes.TrimRight(e.buf, " "))
	}
	return out
}

// Write implements Engine.
func (e *VTCore) Write(p []byte) { e.term.Write(p) }

// Resize implements Engine.
func (e *VTCore) Resize(rows, cols int) { e.term.Resize(rows, cols) }

// Cell implements Engine.
func (e *VTCore) Cell(row, col int) Cell {
	c := e.term.Cell(row, col)
	return Cell{Text: e.term.Text(c), Width: c.Width(), Style: cellStyle(c.Style)}
}

// Line implements Engine.
func (e *VTCore) Line(row int) string {
	b := e.term.AppendRowText(e.buf[:0], row)
	end := len(b)
	for end > 0 && b[end-1] == ' ' {
		end--
	}
	e.buf = b
	return string(b[:end])
}

// Lines implements Engine. The rows are read into one buffer and made one
// string: lines are parts of it, and plain is its beginning, so a look at
// the whole screen costs one allocation for the text instead of one per
// row and a join. A row not written since the last look is copied from
// the text that look kept (vtcore's KeptRowText) instead of read from its
// cells.
func (e *VTCore) Lines() (lines []string, plain string) {
	rows, _ := e.term.Size()
	b := e.buf[:0]
	ends := make([]int, rows)
	last := 0 // where plain ends: after the last non-empty row
	for r := range rows {
		start := len(b)
		if kept, ok := e.term.KeptRowText(r); ok {
			b = append(b, kept...)
		} else {
			b = e.term.AppendRowTextTrimmed(b, r)
		}
		ends[r] = len(b)
		if len(b) > start {
			last = len(b)
		}
		b = append(b, '\n')
	}
	e.buf = b
	text := string(b)
	lines = make([]string, rows)
	start := 0
	for r, end := range ends {
		lines[r] = text[start:end]
		// After every row was read: until then a row that moved is
		// found in the last look's texts, under its old index.
		e.term.KeepRowText(r, lines[r])
		start = end + 1
	}
	return lines, text[:last]
}

// Cursor implements Engine.
func (e *VTCore) Cursor() (row, col int) { return e.term.Cursor() }

// Modes implements Engine.
func (e *VTCore) Modes() Modes {
	t := e.term
	return Modes{
		Title:             t.Title(),
		CursorVisible:     t.CursorVisible(),
		AltScreen:         t.AltScreen(),
		ApplicationCursor: t.ApplicationCursor(),
		ApplicationKeypad: t.ApplicationKeypad(),
		BracketedPaste:    t.BracketedPaste(),
		MouseTracking:     t.MouseTracking(),
		MouseSGR:          t.MouseSGR(),
	}
}

// Close implements Engine.
func (e *VTCore) Close() { e.term.SetReplyHandler(nil) }

func cellStyle(s vtcore.Style) Style {
	return Style{
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
