package vtcore

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

func csiCmd(prefix, inter, final byte) ansi.Cmd {
	return ansi.Cmd(ansi.Command(prefix, inter, final))
}

// Commands with a prefix or an intermediate byte.
var (
	cmdDECST8C   = csiCmd('?', 0, 'W')
	cmdDA2       = csiCmd('>', 0, 'c')
	cmdDECSET    = csiCmd('?', 0, 'h')
	cmdDECRST    = csiCmd('?', 0, 'l')
	cmdDECDSR    = csiCmd('?', 0, 'n')
	cmdDECRQM    = csiCmd(0, '$', 'p')
	cmdDECRQMDEC = csiCmd('?', '$', 'p')
)

// handleCsi is the parser's CSI callback. Parameters keep x/vt's reading:
// a missing parameter takes the default, an explicit 0 stays 0.
func (t *Terminal) handleCsi(cmd ansi.Cmd, params ansi.Params) {
	t.flushGrapheme()
	s := t.scr
	param := func(i, def int) int {
		n, _, _ := params.Param(i, def)
		return n
	}
	switch cmd {
	case '@': // ICH
		if s.insertCells(param(0, 1)) {
			t.diverge()
		}
	case 'A': // CUU
		t.moveCursor(0, -param(0, 1))
	case 'B': // CUD
		t.moveCursor(0, param(0, 1))
	case 'C': // CUF
		t.moveCursor(param(0, 1), 0)
	case 'D': // CUB
		t.moveCursor(-param(0, 1), 0)
	case 'E': // CNL
		t.moveCursor(0, param(0, 1))
		t.carriageReturn()
	case 'F': // CPL
		t.moveCursor(0, -param(0, 1))
		t.carriageReturn()
	case 'G': // CHA
		t.setCursor(param(0, 1)-1, s.cur.y)
	case 'H': // CUP
		t.cup(params)
	case 'I': // CHT
		t.nextTab(param(0, 1))
	case 'J': // ED
		t.eraseDisplay(param(0, 0))
	case 'K': // EL
		t.eraseLine(firstParam(params, 0))
	case 'L': // IL
		if s.insertLines(param(0, 1)) {
			t.toLeftMargin()
		}
	case 'M': // DL
		if s.deleteLines(param(0, 1)) {
			t.toLeftMargin()
		}
	case 'P': // DCH
		if s.deleteCells(param(0, 1)) {
			t.diverge()
		}
	case 'S': // SU
		s.scrollUp(param(0, 1))
	case 'T': // SD
		s.scrollDown(param(0, 1))
	case cmdDECST8C:
		if len(params) == 1 && params[0] == 5 {
			t.tabs = defaultTabStops(t.cols)
		}
	case 'X': // ECH
		t.eraseCharacter(param(0, 1))
	case 'Z': // CBT
		t.prevTab(param(0, 1))
	case '`': // HPA
		t.setCursorPosition(min(t.cols-1, param(0, 1)-1), s.cur.y)
	case 'a': // HPR
		t.setCursorPosition(min(t.cols-1, s.cur.x+param(0, 1)), s.cur.y)
	case 'b': // REP
		t.repeatPreviousCharacter(param(0, 1))
	case 'c': // DA1
		if param(0, 0) == 0 {
			t.replyString("\x1b[?62;1;6;22c") // VT220, 132 columns, selective erase, ANSI colour
		}
	case cmdDA2:
		if param(0, 0) == 0 {
			t.replyString("\x1b[>1;10;0c")
		}
	case 'd': // VPA
		t.setCursorPosition(s.cur.x, min(t.rows-1, param(0, 1)-1))
	case 'e': // VPR
		t.setCursorPosition(s.cur.x, min(t.rows-1, s.cur.y+param(0, 1)))
	case 'f': // HVP
		row, col := param(0, 1), param(1, 1)
		t.setCursor(min(t.cols-1, col-1), min(t.rows-1, row-1))
	case 'g': // TBC
		switch param(0, 0) {
		case 0:
			t.tabs.unset(s.cur.x)
		case 3:
			clear(t.tabs)
		}
	case 'h':
		t.handleMode(params, true, true)
	case cmdDECSET:
		t.handleMode(params, true, false)
	case 'l':
		t.handleMode(params, false, true)
	case cmdDECRST:
		t.handleMode(params, false, false)
	case 'm':
		if readStyle(params, &s.cur.pen) {
			t.diverge()
		}
	case 'n':
		t.deviceStatusReport(params, false)
	case cmdDECDSR:
		t.deviceStatusReport(params, true)
	case cmdDECRQM:
		t.handleRequestMode(params, true)
	case cmdDECRQMDEC:
		t.handleRequestMode(params, false)
	case 't': // XTWINOPS: only the title stack
		t.windowOp(param(0, 0), param(1, 0))
	case 'r': // DECSTBM
		t.setTopBottomMargins(param(0, 1), param(1, t.rows))
	case 's':
		if t.lrMargins { // DECSLRM
			t.setLeftRightMargins(param(0, 1), param(1, t.cols))
		} else { // SCOSC
			s.saveCursor()
		}
	case 'u': // SCORC (the kitty keyboard protocol's forms have a prefix)
		before := s.cur
		t.restoreCursor()
		if s.cur != before {
			t.diverge() // x/vt ignores CSI u
		}
	}
}

// toLeftMargin puts the cursor at the left margin of its row, where IL
// and DL leave it (xterm; tmux agrees on the row). x/vt adds the scroll
// region's top to the row again.
func (t *Terminal) toLeftMargin() {
	s := t.scr
	y := s.cur.y
	if xvt := clamp(s.scroll.top+y, s.scroll.top, s.scroll.bottom-1); xvt != y {
		t.diverge()
	}
	s.cur.x = s.scroll.left
}

// cup is CUP: the row and column from params, each 1 when missing or 0.
func (t *Terminal) cup(params ansi.Params) {
	row, col := 1, 1
	if len(params) > 0 {
		row = max(params[0].Param(1), 1)
		if len(params) > 1 {
			col = max(params[1].Param(1), 1)
		}
	}
	t.setCursorPosition(min(t.cols-1, col-1), min(t.rows-1, row-1))
}

// firstParam is the first parameter, def when it is missing.
func firstParam(params ansi.Params, def int) int {
	if len(params) == 0 {
		return def
	}
	return params[0].Param(def)
}

// eraseDisplay is ED, as xterm and tmux do it: 1 erases from the top up
// to the cursor's cell (x/vt: its whole row), 2 fills the screen with the
// pen's background (x/vt: default blanks), 3 erases the scrollback and
// leaves the screen alone (x/vt blanks it).
func (t *Terminal) eraseDisplay(n int) {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	switch n {
	case 0:
		b := s.blankCell()
		s.fill(y, x, x+t.cols, b)
		s.fillRect(y+1, t.rows, 0, t.cols, b)
	case 1:
		b := s.blankCell()
		s.fillRect(0, y, 0, t.cols, b)
		s.fill(y, 0, x+1, b)
		if y >= 0 && y < s.rows && x+1 < t.cols && s.lines[y] != nil { // a nil row is blanks, as b is
			for _, c := range s.lines[y][x+1:] {
				if c != b {
					t.diverge()
					break
				}
			}
		}
	case 2:
		if b := s.blankCell(); b != (Cell{}) {
			s.fillRect(0, t.rows, 0, t.cols, b)
			t.diverge()
			return
		}
		s.clearAll()
	case 3:
		t.hist.clear()
		if !s.blank() {
			t.diverge()
		}
	}
}

// eraseLine is EL.
func (t *Terminal) eraseLine(n int) {
	s := t.scr
	x, y := s.cur.x, s.cur.y
	switch n {
	case 0:
		t.eraseCharacter(t.cols - x)
	case 1:
		s.fill(y, 0, x+1, s.blankCell())
	case 2:
		if s.cur.pen.Bg == DefaultColor && y >= 0 && y < s.rows {
			clearRow(s.lines[y]) // what fill does with a blank cell, without its checks
			return
		}
		s.fill(y, 0, t.cols, s.blankCell())
	}
}

// eraseCharacter is ECH: blank n cells from the cursor, which stays. It
// clears the pending wrap.
func (t *Terminal) eraseCharacter(n int) {
	if n <= 0 {
		n = 1
	}
	s := t.scr
	x := s.cur.x
	end := x + n
	if end < x { // overflow: x/vt's rectangle is then empty
		end = x
	}
	s.fill(s.cur.y, x, end, s.blankCell())
	t.atPhantom = false
}

// setTopBottomMargins is DECSTBM. Unlike x/vt, a bottom margin past the
// last row is clamped to it (as xterm does); x/vt lets the cursor leave the
// grid.
func (t *Terminal) setTopBottomMargins(top, bottom int) {
	top = max(top, 1)
	if bottom < 1 {
		bottom = t.rows
	}
	if bottom > t.rows {
		bottom = t.rows
		t.diverge()
	}
	if top >= bottom {
		return
	}
	t.scr.scroll.top, t.scr.scroll.bottom = top-1, bottom
	t.setCursorPosition(0, 0)
}

// setLeftRightMargins is DECSLRM (with mode 69 set), clamped like DECSTBM.
func (t *Terminal) setLeftRightMargins(left, right int) {
	left = max(left, 1)
	if right < 1 {
		right = t.cols
	}
	if right > t.cols {
		right = t.cols
		t.diverge()
	}
	if left >= right {
		return
	}
	t.scr.scroll.left, t.scr.scroll.right = left-1, right
	t.setCursorPosition(0, 0)
}

// deviceStatusReport answers DSR 5 and 6 (and DECXCPR with dec).
func (t *Terminal) deviceStatusReport(params ansi.Params, dec bool) {
	n, _, ok := params.Param(0, 1)
	if !ok || n == 0 {
		return
	}
	switch {
	case n == 5 && !dec:
		// Deliberate difference: x/vt answers ESC[?0n; xterm and the DSR
		// definition (ECMA-48 8.3.35, VT510 DSR-OS) answer ESC[0n.
		t.replyString("\x1b[0n")
	case n == 6:
		// Deliberate difference: under DECOM the report is relative to the
		// scroll region's origin, as xterm reports it; x/vt reports the
		// absolute position.
		s := t.scr
		row, col := s.cur.y+1, s.cur.x+1
		if t.origin && (s.scroll.top > 0 || s.scroll.left > 0) {
			row -= s.scroll.top
			col -= s.scroll.left
			t.diverge()
		}
		b := append(t.scratch[:0], "\x1b["...)
		if dec {
			b = append(b, '?')
		}
		b = strconv.AppendInt(b, int64(max(row, 1)), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(max(col, 1)), 10)
		b = append(b, 'R')
		t.scratch = b
		t.replyCopy(b)
	}
}

// maxRepeatCycles bounds REP: once the screen is full of the character,
// printing cols more of it restores the same grid and cursor, so a count
// beyond that is reduced modulo cols.
const maxRepeatCycles = 2

// repeatPreviousCharacter is REP: print the last printed ASCII character n
// more times.
func (t *Terminal) repeatPreviousCharacter(n int) {
	if t.lastChar == 0 {
		return
	}
	if limit := (t.rows + maxRepeatCycles) * t.cols; n > limit {
		n = limit + (n-limit)%t.cols
	}
	for range n {
		t.handlePrint(t.lastChar)
	}
}

// fastCSI parses a complete CSI sequence from b (what follows ESC [) the way
// x/ansi's parser would and dispatches it. It returns the bytes consumed, or
// 0 to leave the sequence to the parser: when it is incomplete, holds a
// control character or a byte the parser treats specially.
func (t *Terminal) fastCSI(b []byte) int {
	cmd, n, final := t.parseCSI(b)
	if final < 0 {
		return 0
	}
	return t.dispatchCSI(cmd, n, final)
}

// parseCSI is fastCSI's parse: it leaves the parameters in t.csiParams and
// returns the command, the index of the last parameter and the index of
// the final byte in b, or a final of -1 when the parser must take the
// sequence. Nothing but dispatchCSI reads t.csiParams, so what is printed
// between the two keeps them.
func (t *Terminal) parseCSI(b []byte) (cmd, n, final int) {
	const missing = ansi.Param(parser.MissingParam)
	params := t.csiParams[:]
	i := 0
	if i < len(b) && b[i] >= '<' && b[i] <= '?' {
		cmd = int(b[i]) << parser.PrefixShift
		i++
	}
	params[0] = missing
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			// The whole number at once (a parameter is missing when its
			// first digit comes), with the parser's arithmetic: a value
			// that reaches MissingParam restarts from 0.
			v := ansi.Param(c - '0')
			for i+1 < len(b) {
				d := b[i+1] - '0'
				if d > 9 {
					break
				}
				i++
				if v == missing {
					v = 0
				}
				v = v*10 + ansi.Param(d)
			}
			if n < len(params) {
				params[n] = v
			}
		case c == ';' || c == ':':
			if n < len(params) {
				if c == ':' {
					params[n] |= parser.HasMoreFlag
				}
				n++
				if n < len(params) {
					params[n] = missing
				}
			}
		case c >= 0x20 && c <= 0x2f:
			// Intermediate bytes (the parser keeps the last), then the final.
			cmd = cmd&^(0xff<<parser.IntermedShift) | int(c)<<parser.IntermedShift
			for i++; i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f; i++ {
				cmd = cmd&^(0xff<<parser.IntermedShift) | int(b[i])<<parser.IntermedShift
			}
			if i == len(b) || b[i] < 0x40 || b[i] > 0x7e {
				return 0, 0, -1
			}
			return cmd | int(b[i]), n, i
		case c >= 0x40 && c <= 0x7e:
			return cmd | int(c), n, i
		default:
			return 0, 0, -1
		}
	}
	return 0, 0, -1
}

// dispatchCSI counts the last parameter as the parser does on dispatch and
// handles the sequence; final is the index of the final byte.
func (t *Terminal) dispatchCSI(cmd, n, final int) int {
	params := t.csiParams[:]
	if n > 0 && n < len(params)-1 || n == 0 && params[0] != ansi.Param(parser.MissingParam) {
		n++
	}
	switch cmd {
	case 'H', 'K':
		// What a full-screen program sends before each row it redraws,
		// handled as handleCsi handles it without the prologue and the
		// switch of fifty cases that cost more than the work.
		if len(t.grapheme) > 0 {
			t.flushGrapheme()
		}
		if cmd == 'H' {
			t.cup(params[:n])
		} else {
			t.eraseLine(firstParam(params[:n], 0))
		}
	default:
		t.handleCsi(ansi.Cmd(cmd), params[:n])
	}
	return final + 1
}

// maxTitleStack bounds the title stack (xterm keeps 10 entries).
const maxTitleStack = 10

// windowOp is XTWINOPS. Only the title stack is kept: 22 pushes the title,
// 23 pops it (a second parameter of 0 or 2 names the window title, 1 only
// the icon's, which has no effect here). x/vt ignores both; a pop that
// changes the title is counted as a departure.
func (t *Terminal) windowOp(op, which int) {
	if which == 1 {
		return
	}
	switch op {
	case 22:
		if len(t.titles) == maxTitleStack {
			t.titles = append(t.titles[:0], t.titles[1:]...)
		}
		t.titles = append(t.titles, t.title)
	case 23:
		if n := len(t.titles); n > 0 {
			if t.titles[n-1] != t.title {
				t.diverge()
			}
			t.title = t.titles[n-1]
			t.titles = t.titles[:n-1]
		}
	}
}
