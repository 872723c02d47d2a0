package vtcore

import "github.com/charmbracelet/x/ansi"

// charset maps ASCII characters to what a designated character set shows; 0
// leaves a character as it is.
type charset [128]rune

// ukCharset is the UK national set as x/vt maps it ('$' shows a pound sign).
var ukCharset = &charset{'$': '£'}

// specialDrawing is the DEC Special Graphics set (ESC ( 0): line drawing,
// mapped to the Unicode characters x/vt uses.
var specialDrawing = &charset{
	'`': '◆', 'a': '▒', 'b': '␉', 'c': '␌', 'd': '␍', 'e': '␊', 'f': '°', 'g': '±',
	'h': '␤', 'i': '␋', 'j': '┘', 'k': '┐', 'l': '┌', 'm': '└', 'n': '┼', 'o': '⎺',
	'p': '⎻', 'q': '─', 'r': '⎼', 's': '⎽', 't': '├', 'u': '┤', 'v': '┴', 'w': '┬',
	'x': '│', 'y': '⩽', 'z': '⩾', '{': 'π', '|': '≠', '}': '£', '~': '·',
}

// handleEsc is the parser's ESC callback.
func (t *Terminal) handleEsc(cmd ansi.Cmd) {
	t.flushGrapheme()
	if inter := cmd.Intermediate(); inter >= '(' && inter <= '+' {
		set := inter - '('
		switch cmd.Final() {
		case 'A':
			t.charsets[set] = ukCharset
		case 'B':
			t.charsets[set] = nil
		case '0':
			t.charsets[set] = specialDrawing
		}
		return
	}
	if cmd.Intermediate() != 0 || cmd.Prefix() != 0 {
		return
	}
	switch cmd.Final() {
	case '=': // DECKPAM
		t.setMode(decMode(66), modeSet)
	case '>': // DECKPNM
		t.setMode(decMode(66), modeReset)
	case '7': // DECSC
		t.scr.saveCursor()
	case '8': // DECRC
		t.restoreCursor()
	case 'D': // IND
		t.index()
	case 'E': // NEL
		t.nextLine()
	case 'H': // HTS
		t.tabs.set(t.scr.cur.x)
	case 'M': // RI
		t.reverseIndex()
	case 'c': // RIS
		t.fullReset()
	case 'n': // LS2
		t.gl = 2
	case 'o': // LS3
		t.gl = 3
	}
}

// restoreCursor is DECRC. A cursor saved before the grid shrank is clamped
// to it; x/vt restores it outside the grid.
func (t *Terminal) restoreCursor() {
	if t.scr.restoreCursor() {
		t.diverge()
	}
}

// fullReset is RIS as x/vt does it: both screens, tab stops, modes and
// character sets reset; the title and dynamic colours stay.
func (t *Terminal) fullReset() {
	t.scrs[0].reset()
	t.scrs[1].reset()
	t.tabs = defaultTabStops(t.cols)
	t.resetModes()
	t.gl, t.gsingle = 0, 0
	t.charsets = [4]*charset{}
	t.atPhantom = false
	t.grapheme = t.grapheme[:0]
	t.lastChar = 0
}
