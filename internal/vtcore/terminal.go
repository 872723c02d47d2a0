package vtcore

import (
	"image/color"
	"slices"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// maxDataSize bounds the payload of one OSC string; the rest of a longer
// one is dropped.
const maxDataSize = 64 << 10

// ignoredDataSize is the parser's buffer for the payload of a DCS, APC, PM
// or SOS string, which the terminal reads nothing of (their handlers only
// end a pending cluster): what does not fit is dropped. An OSC string the
// parser collects (one begun by the 8-bit C1 control, or from a state the
// fast path does not see) gets maxDataSize, given when the parser enters
// it (growParserData), so an idle terminal keeps no 64 KiB buffer.
const ignoredDataSize = 64

// Terminal is a terminal emulator: it parses program output into a grid of
// cells and tracks the modes and title the program sets. It is not safe for
// concurrent use; its owner serialises calls.
type Terminal struct {
	rows, cols int
	scrs       [2]*screen
	scr        *screen // scrs[0] (main) or scrs[1] (alternate)
	hist       history // the main screen's scrollback

	parser  *ansi.Parser
	onReply func([]byte)
	// parserDataGrown: the parser's data buffer is maxDataSize bytes, no
	// longer ignoredDataSize (growParserData).
	parserDataGrown bool

	modes modeTable
	// Hot mode bits, mirrored from modes.
	autowrap, origin, insert, newline, lrMargins bool
	// unicodeCore is mode 2027: characters are grouped into grapheme
	// clusters; otherwise each code point takes its own width (see print.go).
	unicodeCore bool

	// Reported state, updated where x/vt fires its callbacks.
	visible                         bool
	appCursor, appKeypad, bracketed bool
	// mouse is the mouse tracking mode the program set last (9, 1000,
	// 1002 or 1003), 0 for none; mouseSGR is mode 1006.
	mouse    int
	mouseSGR bool
	title    string
	titles   []string // the title stack (CSI 22 t)

	// Dynamic colours (OSC 10, 11, 12); nil is the default.
	fgColor, bgColor, cursorColor color.Color

	tabs     tabStops
	charsets [4]*charset
	gl       int // the set in GL (G0 to G3)
	gsingle  int // a single shift (SS2, SS3) for the next character
	// atPhantom is the pending wrap: the cursor is on the last column and
	// the next character goes to the next line first.
	atPhantom bool
	lastChar  rune   // what REP repeats
	grapheme  []byte // characters held back until their cluster is complete
	clusters  clusterTable
	scratch   []byte
	csiParams [parser.MaxParamsSize]ansi.Param
	widths    *[widthCacheSize]widthSlot  // nil until the first non-ASCII character
	sgrMemo   *[1 << sgrMemoBits]sgrEntry // nil until the first SGR
	kept      keptTexts                   // rows' texts from the last look (rowtext.go)
	// generalIndex makes index scroll through scrollUp even when
	// scrollScreen would do: a test's reference.
	generalIndex bool
	// divergences counts the deliberate departures from x/vt (doc.go).
	divergences int
	osc         oscString
}

// New returns a terminal of rows x cols (each at least 1). onReply receives
// the answers the program asks for (device attributes, cursor and mode
// reports, colour queries) synchronously from Write; each slice is the
// callee's to keep. A nil onReply drops them.
func New(rows, cols int, onReply func([]byte)) *Terminal {
	rows, cols = max(rows, 1), max(cols, 1)
	t := &Terminal{
		rows:    rows,
		cols:    cols,
		onReply: onReply,
		parser:  new(ansi.Parser), // ansi.NewParser would allocate 64 KiB for data
	}
	t.scrs[0], t.scrs[1] = newScreen(rows, cols), newScreen(rows, cols)
	t.scr = t.scrs[0]
	t.scrs[0].hist = &t.hist
	t.parser.SetParamsSize(parser.MaxParamsSize)
	t.parser.SetDataSize(ignoredDataSize)
	t.parser.SetHandler(ansi.Handler{
		Print:     t.handlePrint,
		Execute:   t.handleControl,
		HandleCsi: t.handleCsi,
		HandleEsc: t.handleEsc,
		HandleDcs: func(ansi.Cmd, ansi.Params, []byte) { t.flushGrapheme() },
		HandleOsc: t.handleOsc,
		HandleApc: func([]byte) { t.flushGrapheme() },
		HandlePm:  func([]byte) { t.flushGrapheme() },
		HandleSos: func([]byte) { t.flushGrapheme() },
	})
	t.tabs = defaultTabStops(cols)
	t.resetModes()
	return t
}

// SetReplyHandler replaces the reply callback; nil drops replies.
func (t *Terminal) SetReplyHandler(onReply func([]byte)) { t.onReply = onReply }

// Write parses p. Sequences and UTF-8 characters may be split across calls;
// a grapheme cluster is not (x/vt's rule: the cluster pending at the end of
// a write is printed).
//
// In the ground state, runs of printable ASCII, UTF-8 characters, C0
// controls and complete CSI sequences are handled without the parser
// (writeGround), which takes everything else (and a CSI split across
// writes).
func (t *Terminal) Write(p []byte) {
	for i := 0; i < len(p); {
		if t.osc.active {
			i += t.consumeOSC(p[i:])
			continue
		}
		st := t.parser.State()
		if st == parser.EscapeState && p[i] == ']' {
			// ESC ended the previous write: the OSC starts here.
			t.parser.Reset()
			t.beginOSC()
			i++
			continue
		}
		if st == parser.GroundState {
			if n := t.writeGround(p[i:]); n > 0 {
				i += n
				continue
			}
		}
		t.parser.Advance(p[i])
		if t.parser.State() == parser.OscStringState {
			t.growParserData()
		}
		i++
	}
	t.flushGrapheme()
}

// growParserData gives the parser room for an OSC string's maxDataSize
// bytes, once: it has just entered the string, and collected nothing of it
// yet (entering clears what it holds).
func (t *Terminal) growParserData() {
	if !t.parserDataGrown {
		t.parserDataGrown = true
		t.parser.SetDataSize(maxDataSize)
	}
}

// writeGround handles what starts p in the ground state, item after item
// (a text run, a sequence, a control) while each has a fast path, and
// returns the bytes it consumed: 0 when the first must go to the parser.
// None of the fast paths leaves the ground state, so the loop tests it
// once instead of once an item; an OSC's start ends the loop, Write
// consumes the string.
func (t *Terminal) writeGround(p []byte) int {
	i := 0
	for i < len(p) {
		if b := p[i]; b >= ' ' && b < 0x7f {
			j := i + 1 + printableRun(p[i+1:])
			// Hold the last character back only when what follows could
			// extend its cluster: a non-ASCII character that is not
			// simple, or one after an escape sequence that ends without
			// being dispatched (a CSI made invalid, a string cancelled by
			// CAN). A control or the end of the write prints it anyway,
			// and so does a complete CSI (which flushes first): the text
			// of a coloured screen is a run before a CSI, over and over.
			if j+1 < len(p) && p[j] == 0x1b && p[j+1] == '[' {
				if k0, k1, n, ok := sgrKey(p[j+2:]); ok {
					t.printBefore(p[i:j])
					if t.sgrRecall(k0, k1, n) {
						i = j + 2 + n + 1
					} else {
						i = j + 2 + t.sgr(p[j+2:], k0, k1, n)
					}
					continue
				}
				if cmd, n, final := t.parseCSI(p[j+2:]); final >= 0 {
					t.printBefore(p[i:j])
					i = j + 2 + t.dispatchCSI(cmd, n, final)
					continue
				}
			}
			t.printASCII(p[i:j], j < len(p) && (p[j] == 0x1b || p[j] >= utf8.RuneSelf && !boundaryBefore(p[j:])))
			i = j
		} else if b == 0x1b {
			if i+1 < len(p) && p[i+1] == ']' {
				t.beginOSC()
				return i + 2
			}
			if i+1 < len(p) && p[i+1] == '[' {
				if k0, k1, n, ok := sgrKey(p[i+2:]); ok {
					if len(t.grapheme) == 0 && t.sgrRecall(k0, k1, n) {
						i += 2 + n + 1
					} else {
						i += 2 + t.sgr(p[i+2:], k0, k1, n)
					}
					continue
				}
				if n := t.fastCSI(p[i+2:]); n > 0 {
					i += 2 + n
					continue
				}
			}
			return i
		} else if b >= 0xc2 && b <= 0xf4 {
			// Complete, valid UTF-8 characters decode as the parser
			// would decode them; anything else is left to the parser.
			n := t.printUTF8(p[i:])
			if n == 0 {
				return i
			}
			i += n
		} else if b < ' ' || b == 0x7f {
			// In the ground state the parser executes every C0 control
			// but ESC, and DEL, and stays there.
			t.handleControl(b)
			i++
		} else {
			return i
		}
	}
	return i
}

// WriteString is Write for a string.
func (t *Terminal) WriteString(s string) { t.Write([]byte(s)) }

// Size returns the grid size.
func (t *Terminal) Size() (rows, cols int) { return t.rows, t.cols }

// Resize changes the grid size without reflowing: columns are cut or added
// at the right; rows leave at the top into the history when the cursor
// would fall off the bottom, and come back from it when the grid grows, as
// in xterm and tmux. Scroll regions and tab stops reset.
func (t *Terminal) Resize(rows, cols int) {
	rows, cols = max(rows, 1), max(cols, 1)
	x := t.scr.cur.x
	if t.atPhantom && x < cols-1 {
		t.atPhantom = false
		x++
	}
	for _, s := range t.scrs {
		if s.resize(rows, cols) {
			t.diverge()
		}
	}
	t.rows, t.cols = rows, cols
	t.tabs = defaultTabStops(cols)
	t.setCursor(clamp(x, 0, cols-1), t.scr.cur.y)
	if t.modes.dec[2048] == modeSet {
		t.replyInBandResize()
	}
}

// SetScrollback sets how many rows that left the top of the main screen
// are kept (0, the default, keeps none), dropping the oldest beyond it.
func (t *Terminal) SetScrollback(rows int) { t.hist.setLimit(rows) }

// ScrollbackLen returns the number of rows in the scrollback.
func (t *Terminal) ScrollbackLen() int { return t.hist.len() }

// AppendScrollbackText appends the text of scrollback row i (0 is the
// oldest) to dst, skipping wide continuations, trailing blanks trimmed.
func (t *Terminal) AppendScrollbackText(dst []byte, i int) []byte {
	if i < 0 || i >= t.hist.len() {
		return dst
	}
	return t.appendCellsText(dst, t.hist.at(i))
}

// Divergences counts the times the terminal did what xterm does where
// x/vt, its differential-test oracle, would not (see the package doc). The
// differential tests stop comparing a stream once it is non-zero.
func (t *Terminal) Divergences() int { return t.divergences }

// Cursor returns the cursor's zero-based position.
func (t *Terminal) Cursor() (row, col int) { return t.scr.cur.y, t.scr.cur.x }

// CursorVisible reports whether the program last showed the cursor (DECTCEM),
// as x/vt reports it through its callbacks.
func (t *Terminal) CursorVisible() bool { return t.visible }

// AltScreen reports whether the alternate screen is shown.
func (t *Terminal) AltScreen() bool { return t.scr == t.scrs[1] }

// Title returns the window title set by OSC 0 or 2.
func (t *Terminal) Title() string { return t.title }

// ApplicationCursor reports DECCKM: arrow keys are sent in SS3 form.
func (t *Terminal) ApplicationCursor() bool { return t.appCursor }

// ApplicationKeypad reports DECKPAM / DECNKM.
func (t *Terminal) ApplicationKeypad() bool { return t.appKeypad }

// MouseTracking reports the mouse tracking mode the program enabled: 9
// (X10: presses), 1000 (presses and releases), 1002 (and motion with a
// button held) or 1003 (all motion); 0 when none. The last one set wins,
// and resetting it turns tracking off, as in xterm.
func (t *Terminal) MouseTracking() int { return t.mouse }

// MouseSGR reports mode 1006: mouse reports in SGR form (CSI < ... M/m).
func (t *Terminal) MouseSGR() bool { return t.mouseSGR }

// BracketedPaste reports mode 2004.
func (t *Terminal) BracketedPaste() bool { return t.bracketed }

// OriginMode reports DECOM.
func (t *Terminal) OriginMode() bool { return t.origin }

// Cell returns the cell at row, col of the shown screen; a zero Cell (a
// blank) when out of range. Use Text for its content.
func (t *Terminal) Cell(row, col int) Cell {
	if row < 0 || row >= t.rows || col < 0 || col >= t.cols || t.scr.lines[row] == nil {
		return Cell{}
	}
	return t.scr.lines[row][col]
}

// Text returns the grapheme cluster a cell shows: " " for a blank, "" for
// the continuation of a wide character.
func (t *Terminal) Text(c Cell) string {
	switch {
	case c.content > 0 && c.content < utf8.RuneSelf:
		return asciiStrings[c.content]
	case c.content > 0:
		return string(rune(c.content))
	case c.content < 0:
		return t.clusters.lookup(-c.content - 1)
	case c.width < 0:
		return ""
	default:
		return " "
	}
}

// AppendRowText appends the text of a row to dst, skipping the cells of
// width zero (wide continuations), without trimming.
func (t *Terminal) AppendRowText(dst []byte, row int) []byte {
	if row < 0 || row >= t.rows {
		return dst
	}
	line := t.scr.lines[row]
	if line == nil { // never written: blanks
		dst = slices.Grow(dst, t.cols)
		for range t.cols {
			dst = append(dst, ' ')
		}
		return dst
	}
	return t.appendCellsText(dst, line)
}

// AppendRowTextTrimmed appends the text of a row to dst like AppendRowText,
// with the row's trailing spaces trimmed. It reads only the part of the row
// that was written (rowUsed): rows mostly hold a short line on a wide
// screen, and the rest are blanks the trim would drop anyway.
func (t *Terminal) AppendRowTextTrimmed(dst []byte, row int) []byte {
	if row < 0 || row >= t.rows {
		return dst
	}
	line := t.scr.lines[row]
	start := len(dst)
	dst = t.appendCellsText(dst, line[:rowUsed(line)])
	end := len(dst)
	for end > start && dst[end-1] == ' ' {
		end--
	}
	return dst[:end]
}

// appendCellsText runs for every cell of every row written since the last
// look at the screen (a wait's, a snapshot's; rowtext.go): it reads the cells
// in place, since copying each out (range by value) and reading a byte of
// the copy stalled on every cell, writes ASCII, the common case, without
// encoding it, and encodes the three-byte characters TUIs draw with (box
// drawing, a rule "────" written once for its repeats) without a call.
func (t *Terminal) appendCellsText(dst []byte, cells []Cell) []byte {
	dst = slices.Grow(dst, len(cells))
	for i := 0; i < len(cells); i++ {
		c := &cells[i]
		switch content := c.content; {
		case c.width < 0:
		case content == 0:
			dst = append(dst, ' ')
		case content < utf8.RuneSelf && content > 0:
			dst = append(dst, byte(content))
		case content >= 0x800 && content < 0x10000 && (content < 0xd800 || content > 0xdfff):
			b0, b1, b2 := byte(0xe0|content>>12), byte(0x80|content>>6&0x3f), byte(0x80|content&0x3f)
			dst = append(dst, b0, b1, b2)
			for i+1 < len(cells) && cells[i+1].content == content && cells[i+1].width >= 0 {
				i++
				dst = append(dst, b0, b1, b2)
			}
		case content > 0:
			dst = utf8.AppendRune(dst, rune(content))
		default:
			dst = append(dst, t.clusters.lookup(-content-1)...)
		}
	}
	return dst
}

// asciiStrings holds a one-byte string per ASCII character, so Text does
// not allocate for them.
var asciiStrings = func() (s [utf8.RuneSelf]string) {
	for i := range s {
		s[i] = string(rune(i))
	}
	return s
}()

func (t *Terminal) replyString(s string) {
	if t.onReply != nil {
		t.onReply([]byte(s))
	}
}

// diverge counts a deliberate departure from x/vt.
func (t *Terminal) diverge() {
	t.divergences++
}
