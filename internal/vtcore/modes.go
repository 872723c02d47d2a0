package vtcore

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// Mode settings, as DECRQM reports them.
const (
	modeNotRecognized uint8 = iota
	modeSet
	modeReset
	modePermanentlySet
	modePermanentlyReset
)

// mode names an ANSI (SM/RM) or DEC private (DECSET/DECRST) mode.
type mode struct {
	n    int
	ansi bool
}

func decMode(n int) mode  { return mode{n: n} }
func ansiMode(n int) mode { return mode{n: n, ansi: true} }

// modeTable records every mode the program set or reset, so DECRQM can
// report it; the modes the emulator acts on are mirrored in bool fields.
type modeTable struct {
	dec, ansi map[int]uint8
}

func (mt *modeTable) get(m mode) uint8 {
	if m.ansi {
		return mt.ansi[m.n]
	}
	return mt.dec[m.n]
}

func (mt *modeTable) put(m mode, v uint8) {
	if m.ansi {
		mt.ansi[m.n] = v
	} else {
		mt.dec[m.n] = v
	}
}

// reset restores the modes x/vt recognises to their defaults and forgets
// the others.
func (mt *modeTable) reset() {
	mt.ansi = map[int]uint8{20: modeReset}
	mt.dec = map[int]uint8{
		1: modeReset, 6: modeReset, 7: modeSet, 9: modeReset, 25: modeSet,
		66: modeReset, 69: modeReset, 1000: modeReset, 1001: modeReset,
		1002: modeReset, 1003: modeReset, 1004: modeReset, 1006: modeReset,
		1047: modeReset, 1048: modeReset, 1049: modeReset, 2004: modeReset,
		// Grapheme clustering: recognised (reported reset) so that programs
		// that query it before enabling it find it; x/vt reports it unknown.
		2027: modeReset,
	}
}

// resetModes is x/vt's resetModes after a reset of both screens: defaults
// back, main screen shown, cursor visible. (x/vt applies each default in map
// order; after the screens' reset every order ends here.)
func (t *Terminal) resetModes() {
	t.modes.reset()
	t.autowrap = true
	t.origin, t.insert, t.newline, t.lrMargins = false, false, false, false
	t.unicodeCore = false
	t.appCursor, t.appKeypad, t.bracketed = false, false, false
	t.mouse, t.mouseSGR = 0, false
	t.scr.cur.hidden = false
	t.scr = t.scrs[0]
	t.visible = true
}

// handleMode is SM/RM (isANSI) or DECSET/DECRST for every parameter.
func (t *Terminal) handleMode(params ansi.Params, set, isANSI bool) {
	for _, p := range params {
		n := p.Param(-1)
		if n == -1 {
			continue
		}
		m := decMode(n)
		if isANSI {
			m = ansiMode(n)
		}
		if v := t.modes.get(m); v == modePermanentlySet || v == modePermanentlyReset {
			continue
		}
		v := modeReset
		if set {
			v = modeSet
		}
		t.setMode(m, v)
	}
}

// setMode records a mode and applies its effect.
func (t *Terminal) setMode(m mode, v uint8) {
	t.modes.put(m, v)
	on := v == modeSet || v == modePermanentlySet
	if m.ansi {
		switch m.n {
		case 4:
			t.insert = on
		case 20:
			t.newline = on
		}
		return
	}
	switch m.n {
	case 1:
		t.appCursor = on
	case 6:
		// Setting or resetting DECOM homes the cursor to the new origin
		// (xterm, tmux); x/vt leaves it.
		t.origin = on
		before, phantom := t.scr.cur, t.atPhantom
		t.setCursorPosition(0, 0)
		if t.scr.cur != before || phantom {
			t.diverge()
		}
	case 7:
		t.autowrap = on
	case 25:
		t.setCursorHidden(!on)
		t.visible = on
	case 66:
		t.appKeypad = on
	case 9, 1000, 1002, 1003:
		if on {
			t.mouse = m.n
		} else if t.mouse == m.n {
			t.mouse = 0
		}
	case 1006:
		t.mouseSGR = on
	case 69:
		t.lrMargins = on
	case 47, 1047:
		wasAlt := t.AltScreen()
		if on {
			t.enterAltScreen()
		} else {
			t.leaveAltScreen(false)
		}
		if m.n == 47 && wasAlt != t.AltScreen() {
			t.diverge() // x/vt ignores mode 47
		}
	case 1048:
		if on {
			t.scr.saveCursor()
		} else {
			t.restoreCursor()
		}
	case 1049:
		if on {
			t.scr.saveCursor()
			t.enterAltScreen()
		} else {
			t.leaveAltScreen(true)
		}
	case 2027:
		t.unicodeCore = on
	case 2004:
		t.bracketed = on
	case 2048:
		if on {
			t.replyInBandResize()
		}
	}
}

// setCursorHidden hides or shows the cursor of the shown screen.
func (t *Terminal) setCursorHidden(hidden bool) {
	if t.scr.cur.hidden != hidden {
		t.visible = !hidden
	}
	t.scr.cur.hidden = hidden
}

// enterAltScreen shows the alternate screen, cleared, as xterm and tmux do
// for modes 47, 1047 and 1049: the terminal has one cursor, so the
// alternate screen takes the main screen's cursor where it is (x/vt homes
// it). The reported cursor visibility becomes the shown screen's.
func (t *Terminal) enterAltScreen() {
	alt := t.scrs[1]
	if t.scr == alt {
		return
	}
	if t.scr.cur.x != 0 || t.scr.cur.y != 0 || t.atPhantom {
		t.diverge() // x/vt homes the cursor
	}
	alt.cur = t.scrs[0].cur
	t.scr = alt
	alt.clearAll()
	t.visible = !t.scr.cur.hidden
}

// leaveAltScreen shows the main screen again. The cursor (position, pen
// and visibility) stays as the program left it on the alternate screen (one
// cursor, as in xterm and tmux); with restore (mode 1049) the cursor saved on the main screen is
// then restored, even when the main screen was already shown (xterm:
// "leave the alternate screen, then DECRC"). x/vt instead shows the main
// screen with the cursor it had on entering and restores nothing; a
// difference from that is counted.
func (t *Terminal) leaveAltScreen(restore bool) {
	main := t.scrs[0]
	xvt := main.cur // what x/vt shows after leaving
	if t.scr != main {
		main.cur = t.scr.cur
		t.scr = main
	}
	if restore && main.savedValid {
		// Visibility (DECTCEM) is the terminal's, not the saved cursor's.
		hidden := main.cur.hidden
		main.cur = main.saved
		main.cur.hidden = hidden
	}
	main.clampCursor(&main.cur)
	if main.cur != xvt {
		t.diverge()
	}
	t.visible = !t.scr.cur.hidden
}

// handleRequestMode is DECRQM: report a mode's setting.
func (t *Terminal) handleRequestMode(params ansi.Params, isANSI bool) {
	n, _, ok := params.Param(0, 0)
	if !ok || n == 0 {
		return
	}
	m := decMode(n)
	if isANSI {
		m = ansiMode(n)
	}
	v := t.modes.get(m)
	if n == 2027 && !isANSI {
		t.diverge() // x/vt does not recognise mode 2027 until it is set
	}
	if v > modePermanentlyReset {
		v = modeNotRecognized
	}
	b := append(t.scratch[:0], "\x1b["...)
	if !isANSI {
		b = append(b, '?')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, "$y"...)
	t.scratch = b
	t.replyCopy(b)
}

func (t *Terminal) replyInBandResize() {
	t.replyString("\x1b[48;" + strconv.Itoa(t.rows) + ";" + strconv.Itoa(t.cols) + ";0;0t")
}

// replyCopy hands a copy of b to the reply callback.
func (t *Terminal) replyCopy(b []byte) {
	if t.onReply != nil {
		t.onReply(append([]byte(nil), b...))
	}
}
