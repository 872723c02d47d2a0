package ptywright

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"ptywright/internal/engine"
	"ptywright/internal/secrets"
)

// defaultRows and defaultCols are the terminal size used when a caller leaves
// rows or cols at zero.
const (
	defaultRows = 24
	defaultCols = 80
)

// defaultScrollback is how many rows that scrolled off the top of the main
// screen a Screen keeps when not told otherwise. Rows are kept without their
// trailing blanks and the scrollback also holds at most 40 cells per row on
// average, so a flood of full rows on a very wide screen keeps fewer of
// them: memory stays within about 3 MB whatever the output.
const defaultScrollback = engine.DefaultScrollback

// Screen is a parsed terminal grid fed with raw program output. A Session owns
// one; replay and tests can use one directly, without a process.
//
// A Screen is safe for concurrent use. It answers the terminal queries in
// the output (cursor reports, device attributes) as it parses them, until it
// is closed.
type Screen struct {
	mu     sync.Mutex
	eng    engine.Engine
	size   Size
	seq    uint64
	closed bool
	// maxCells is the cell budget Resize holds to (0: DefaultMaxCells).
	maxCells int

	// The plain text of the current sequence, built on first use.
	plainSeq   uint64
	plainValid bool
	plainLines []string
	plain      string // plainLines joined as PlainText joins them

	// The text matchers read at the current sequence (matchTextLocked).
	matchSeq   uint64
	matchValid bool
	match      string
}

// NewScreen returns an empty screen of the given size (zero rows or cols mean
// 24x80) with the default scrollback. Terminal replies the output asks for
// are discarded.
func NewScreen(size Size) (*Screen, error) {
	return NewScreenWith(ScreenOptions{Size: size})
}

// ScreenOptions configure NewScreenWith.
type ScreenOptions struct {
	// Size is the grid size; zero rows or cols mean 24x80.
	Size Size
	// Scrollback is how many rows that scrolled off the top of the main
	// screen are kept (see Screen.Scrollback): 0 means 3000 (with at most
	// 40 cells per row on average, about 3 MB at most), a negative number
	// none.
	Scrollback int
	// Engine is the terminal emulator; "" means EngineVTCore.
	Engine Engine
	// MaxCells is the screen's cell budget (rows times cols, at creation
	// and on every resize); 0 means DefaultMaxCells.
	MaxCells int
}

// NewScreenWith returns an empty screen configured by opts. Terminal replies
// the output asks for are discarded.
func NewScreenWith(opts ScreenOptions) (*Screen, error) {
	return newScreen(opts, nil)
}

func newScreen(opts ScreenOptions, onReply func([]byte)) (*Screen, error) {
	size := opts.Size.WithDefaults()
	if err := checkMaxCells(opts.MaxCells); err != nil {
		return nil, err
	}
	if err := size.ValidateCells(opts.MaxCells); err != nil {
		return nil, err
	}
	if err := opts.Engine.Validate(); err != nil {
		return nil, err
	}
	eng := newEngineOf(opts.Engine, size.Rows, size.Cols, onReply)
	eng.SetScrollback(scrollbackRows(opts.Scrollback))
	return &Screen{eng: eng, size: size, maxCells: opts.MaxCells}, nil
}

// scrollbackRows resolves a Scrollback option: 0 is the default, negative
// none.
func scrollbackRows(n int) int {
	switch {
	case n == 0:
		return defaultScrollback
	case n < 0:
		return 0
	}
	return n
}

// WithDefaults returns s with zero rows or cols replaced by 24 and 80, the
// size Start and NewScreen give such a Size.
func (s Size) WithDefaults() Size {
	if s.Rows == 0 {
		s.Rows = defaultRows
	}
	if s.Cols == 0 {
		s.Cols = defaultCols
	}
	return s
}

// Write parses program output into the grid and advances the sequence. It
// never fails; after Close it still parses but no longer answers queries.
func (s *Screen) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	s.eng.Write(p)
	s.seq++
	s.mu.Unlock()
	return len(p), nil
}

// Resize changes the grid size and advances the sequence. Shrinking keeps
// the cursor's row: rows leave at the top into the scrollback, and growing
// takes them back, as xterm and tmux do.
func (s *Screen) Resize(size Size) error {
	if err := size.ValidateCells(s.maxCells); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.eng.Resize(size.Rows, size.Cols)
	s.size = size
	s.seq++
	return nil
}

// Size returns the current grid size.
func (s *Screen) Size() Size {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Sequence counts the writes and resizes the screen has seen. It only grows.
func (s *Screen) Sequence() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// PlainText returns the screen's text: rows joined by "\n", trailing spaces
// and trailing blank rows trimmed, wide-character continuation cells skipped.
func (s *Screen) PlainText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plainLocked()
}

// Snapshot copies the screen's state. Cells are built only when asked for.
// The result is raw; Session.Snapshot applies redaction.
func (s *Screen) Snapshot(withCells bool) ScreenSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked(withCells)
}

// snapshotAndText is the raw snapshot (no cells) and the text screen
// matchers search, read together, so a wait's evidence is the screen its
// matcher matched on; with echo, the text leaves that echo out.
func (s *Screen) snapshotAndText(echo *Echo) (ScreenSnapshot, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if echo != nil {
		return s.snapshotLocked(false), s.matchTextExcludingLocked(echo)
	}
	return s.snapshotLocked(false), s.matchTextLocked()
}

func (s *Screen) snapshotLocked(withCells bool) ScreenSnapshot {
	m := s.eng.Modes()
	row, col := s.eng.Cursor()
	snap := ScreenSnapshot{
		Size:              s.size,
		Cursor:            Cursor{Row: row, Col: col, Visible: m.CursorVisible},
		Sequence:          s.seq,
		PlainText:         s.plainLocked(),
		Cells:             []Cell{},
		AlternateScreen:   m.AltScreen,
		ApplicationCursor: m.ApplicationCursor,
		ApplicationKeypad: m.ApplicationKeypad,
		BracketedPaste:    m.BracketedPaste,
		Title:             m.Title,
	}
	if withCells {
		snap.Cells = s.cellsLocked()
	}
	// The newest scrollback row first: it rarely goes on into row 0.
	if lines := s.linesLocked(); !m.AltScreen && len(lines) > 0 && secrets.LeadIn(s.eng.ScrollbackTail(1), lines[0], s.size.Cols) != nil {
		snap.above = secrets.LeadIn(s.eng.ScrollbackTail(4), lines[0], s.size.Cols)
	}
	return snap
}

// Scrollback returns the rows that scrolled off the top of the main screen
// (or left it when it shrank), oldest first, as plain text with trailing
// spaces trimmed: what a person would see scrolling up. The alternate
// screen has none. It holds at most the configured number of rows
// (ScreenOptions.Scrollback, Options.Scrollback).
func (s *Screen) Scrollback() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eng.Scrollback()
}

// applicationCursor reports whether arrow keys must be sent in SS3 form.
func (s *Screen) applicationCursor() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eng.Modes().ApplicationCursor
}

// mouseModes reports the mouse tracking mode the program turned on (9,
// 1000, 1002, 1003; 0 for none) and whether it asked for SGR reports.
func (s *Screen) mouseModes() (tracking int, sgr bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.eng.Modes()
	return m.MouseTracking, m.MouseSGR
}

// Close stops answering queries. The screen stays readable and writable.
func (s *Screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.eng.Close()
	}
	return nil
}

// linesLocked returns one string per row (trailing spaces trimmed), cached
// per sequence so repeated matcher evaluation costs nothing.
func (s *Screen) linesLocked() []string {
	if s.plainValid && s.plainSeq == s.seq {
		return s.plainLines
	}
	s.plainLines, s.plain = s.eng.Lines()
	s.plainSeq, s.plainValid = s.seq, true
	return s.plainLines
}

// plainLocked is PlainText, cached like linesLocked.
func (s *Screen) plainLocked() string {
	s.linesLocked()
	return s.plain
}

// matchTextLocked is the text screen matchers search: PlainText, except that the
// cursor row keeps its blanks up to the cursor, as a person sees them. So a
// prompt's trailing space (">>> ", "$ ") matches when the cursor sits after
// it; rows below the cursor row are still trimmed.
func (s *Screen) matchTextLocked() string {
	if s.matchValid && s.matchSeq == s.seq {
		return s.match
	}
	lines := s.linesLocked()
	row, col := s.eng.Cursor()
	text := s.plain
	if row >= 0 && row < len(lines) && col > 0 {
		if pad := col - s.eng.UsedCols(row); pad > 0 {
			out := make([]string, max(len(lines), row+1))
			copy(out, lines)
			out[row] += strings.Repeat(" ", pad)
			end := len(out)
			for end > row+1 && out[end-1] == "" {
				end--
			}
			text = strings.Join(out[:end], "\n")
		}
	}
	s.match, s.matchSeq, s.matchValid = text, s.seq, true
	return text
}

func (s *Screen) cellsLocked() []Cell {
	return s.rowCellsLocked(0, s.size.Rows)
}

// rowCellsLocked returns the cells of rows from up to to.
func (s *Screen) rowCellsLocked(from, to int) []Cell {
	cells := make([]Cell, 0, (to-from)*s.size.Cols)
	for r := from; r < to; r++ {
		for c := range s.size.Cols {
			ec := s.eng.Cell(r, c)
			if ec.Width == 0 && c > 0 && cells[len(cells)-1].Wide {
				// The second cell of a wide character shows the
				// character's rendition (its background, its underline).
				ec.Style = engine.Style(cells[len(cells)-1].Style)
			}
			cells = append(cells, Cell{
				Row:              r,
				Col:              c,
				Text:             ec.Text,
				Wide:             ec.Width > 1,
				WideContinuation: ec.Width == 0,
				Style:            CellStyle(ec.Style),
			})
		}
	}
	return cells
}

// ScreenSnapshot is one copy of the screen, shaped as the JSON-RPC reference
// shapes it.
type ScreenSnapshot struct {
	Size     Size   `json:"size"`
	Cursor   Cursor `json:"cursor"`
	Sequence uint64 `json:"sequence"`
	// Rows is the range of screen rows PlainText, Cells and Runs cover
	// when the snapshot was taken of some rows (SnapshotOptions.Rows), cut
	// to the screen; nil (omitted) when they cover every row. Cursor is
	// the screen's all the same.
	Rows *RowRange `json:"rows,omitzero"`
	// PlainText is the rows joined by "\n" with trailing spaces and trailing
	// blank rows trimmed.
	PlainText string `json:"plain_text"`
	// Cells is empty unless the snapshot was taken with cells.
	Cells []Cell `json:"cells"`
	// Runs is the grid as runs of cells of one style (CellRun), when the
	// snapshot was taken with SnapshotOptions.Runs; nil (omitted)
	// otherwise.
	Runs []CellRun `json:"runs,omitzero"`
	// Scrollback holds the rows that scrolled off the top, oldest first, when
	// the snapshot was taken with SnapshotOptions.Scrollback; omitted
	// otherwise.
	Scrollback        []string `json:"scrollback,omitempty"`
	AlternateScreen   bool     `json:"alternate_screen"`
	ApplicationCursor bool     `json:"application_cursor"`
	ApplicationKeypad bool     `json:"application_keypad"`
	BracketedPaste    bool     `json:"bracketed_paste"`
	// Title is the window title the program set; "" (null on the wire) when
	// it never set one.
	Title string `json:"-"`
	// above: the scrollback rows the first row goes on from (LeadIn), read
	// with the screen so that a secret wrapped off the top is redacted.
	above []string
	// read: a snapshot of some rows not yet cut to them (Screen.read).
	read *rowsRead
}

type snapshotWire ScreenSnapshot

// MarshalJSON writes an unset title as null, as the reference does.
func (s ScreenSnapshot) MarshalJSON() ([]byte, error) {
	var title *string
	if s.Title != "" {
		title = &s.Title
	}
	if s.Cells == nil {
		s.Cells = []Cell{}
	}
	return json.Marshal(struct {
		snapshotWire
		Title *string `json:"title"`
	}{snapshotWire(s), title})
}

// UnmarshalJSON reads the wire form back, for clients of the server.
func (s *ScreenSnapshot) UnmarshalJSON(data []byte) error {
	var w struct {
		snapshotWire
		Title *string `json:"title"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = ScreenSnapshot(w.snapshotWire)
	if w.Title != nil {
		s.Title = *w.Title
	}
	return nil
}

// Lines returns exactly Size.Rows rows of plain text (trailing spaces
// trimmed), padding the rows PlainText trims; for a snapshot of some rows,
// exactly those rows (Rows.To - Rows.From).
func (s ScreenSnapshot) Lines() []string {
	lines := strings.Split(s.PlainText, "\n")
	if s.PlainText == "" {
		lines = lines[:0]
	}
	n := s.Size.Rows
	if s.Rows != nil {
		n = s.Rows.To - s.Rows.From
	}
	for len(lines) < n {
		lines = append(lines, "")
	}
	return lines
}

// Cursor is the cursor's zero-based position and visibility.
type Cursor struct {
	Row     int  `json:"row"`
	Col     int  `json:"col"`
	Visible bool `json:"visible"`
}

// Cell is one grid cell. A wide character occupies a Wide cell followed by a
// WideContinuation cell with empty Text.
type Cell struct {
	Row              int       `json:"row"`
	Col              int       `json:"col"`
	Text             string    `json:"text"`
	Wide             bool      `json:"wide"`
	WideContinuation bool      `json:"wide_continuation"`
	Style            CellStyle `json:"style"`
}

// CellStyle is a cell's rendition. Colours are "default", "idx:N" (the 256
// palette, 0-15 being the basic colours) or "rgb:R:G:B".
type CellStyle struct {
	Foreground string `json:"foreground"`
	Background string `json:"background"`
	Bold       bool   `json:"bold"`
	Dim        bool   `json:"dim"`
	Italic     bool   `json:"italic"`
	Underline  bool   `json:"underline"`
	// UnderlineStyle names the underline when Underline is set: "single",
	// "double" (SGR 21 or 4:2), "curly", "dotted" or "dashed"; "" otherwise.
	UnderlineStyle string `json:"underline_style"`
	Inverse        bool   `json:"inverse"`
	Strikethrough  bool   `json:"strikethrough"`
	// Blink is set for slow and rapid blink (SGR 5 and 6).
	Blink bool `json:"blink"`
}

// MaxSizeCells bounds rows and cols. A PTY accepts larger values, but no real
// terminal has them and the screen allocates rows*cols cells, so a typo like
// 100000 would cost gigabytes instead of failing.
const MaxSizeCells = 10000

// DefaultMaxCells is the default cell budget of one screen: rows times
// cols may not exceed it (Size.Validate), so one request cannot make the
// process allocate gigabytes (10000x10000 is 100 million cells, several GB
// of grid before its first snapshot). 1,000,000 cells is 1000x1000, or a
// 250x4000 screen: far more than any real terminal. Options.MaxCells,
// ScreenOptions.MaxCells and the server's --max-cells set another budget.
const DefaultMaxCells = 1_000_000

// Size is a terminal size in cells and optionally pixels.
//
// Pixel dimensions are passed to the PTY (TIOCSWINSZ) for programs that draw
// images; zero means unknown, which is what most terminals report. The PTY
// holds them in 16 bits, so Validate refuses more than 65535.
type Size struct {
	Rows        int `json:"rows"`
	Cols        int `json:"cols"`
	PixelWidth  int `json:"pixel_width"`
	PixelHeight int `json:"pixel_height"`
}

// Validate reports the first field outside its range as a *FieldError
// wrapping ErrInvalidSize, so callers can both show the field name and match
// the class with errors.Is. Rows and cols are each at most MaxSizeCells,
// and their product at most DefaultMaxCells (Field "size").
func (s Size) Validate() error {
	return s.ValidateCells(DefaultMaxCells)
}

// ValidateCells is Validate with a cell budget of maxCells instead of
// DefaultMaxCells (0 or less means DefaultMaxCells). A budget above
// MaxSizeCells squared leaves only the per-side bounds.
func (s Size) ValidateCells(maxCells int) error {
	if maxCells <= 0 {
		maxCells = DefaultMaxCells
	}
	switch {
	case s.Rows < 1 || s.Rows > MaxSizeCells:
		return sizeFieldError("rows", s.Rows)
	case s.Cols < 1 || s.Cols > MaxSizeCells:
		return sizeFieldError("cols", s.Cols)
	case s.PixelWidth < 0 || s.PixelWidth > math.MaxUint16:
		return &FieldError{Field: "pixel_width", Reason: fmt.Sprintf("must be between 0 and 65535, got %d", s.PixelWidth), Err: ErrInvalidSize}
	case s.PixelHeight < 0 || s.PixelHeight > math.MaxUint16:
		return &FieldError{Field: "pixel_height", Reason: fmt.Sprintf("must be between 0 and 65535, got %d", s.PixelHeight), Err: ErrInvalidSize}
	case s.Rows*s.Cols > maxCells:
		return &FieldError{
			Field:  "size",
			Reason: fmt.Sprintf("%d rows x %d cols is %d cells, over the budget of %d cells per screen", s.Rows, s.Cols, s.Rows*s.Cols, maxCells),
			Err:    ErrInvalidSize,
		}
	}
	return nil
}

// sideBoundsOnly is a cell budget that leaves only the per-side bounds: for
// a size checked before it reaches the session whose budget applies.
const sideBoundsOnly = MaxSizeCells * MaxSizeCells

// checkMaxCells refuses a negative cell budget option.
func checkMaxCells(n int) error {
	if n < 0 {
		return &FieldError{Field: "max_cells", Reason: fmt.Sprintf("must not be negative, got %d", n), Err: ErrInvalidSize}
	}
	return nil
}

func sizeFieldError(field string, v int) *FieldError {
	return &FieldError{
		Field:  field,
		Reason: fmt.Sprintf("must be between 1 and %d, got %d", MaxSizeCells, v),
		Err:    ErrInvalidSize,
	}
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
	// xterm where vtcore does not (see internal/engine/xvt.go and README.md): a
	// resize cuts rows at the bottom, the alternate screen homes the cursor,
	// widths are grapheme widths whatever mode 2027 says, no title stack,
	// no SGR 21; and it parses 0.5-10 MB/s. A panic inside x/vt is
	// recovered and the bytes that caused it are dropped.
	EngineXVT Engine = "xvt"
)

// Validate reports an unknown engine name; "" is the default engine.
func (e Engine) Validate() error {
	switch e {
	case "", EngineVTCore, EngineXVT:
		return nil
	}
	return &FieldError{Field: "engine", Reason: fmt.Sprintf("must be %q or %q, got %q", EngineVTCore, EngineXVT, string(e)), Err: ErrInvalidEngine}
}

// newEngineOf returns the named engine (validated by the caller). onReply
// must not block (nil drops replies); it is called from Write.
func newEngineOf(kind Engine, rows, cols int, onReply func([]byte)) engine.Engine {
	if kind == EngineXVT {
		e := engine.NewXVT(rows, cols, onReply)
		e.RecoverPanics = true
		return e
	}
	return engine.NewVTCore(rows, cols, onReply)
}
