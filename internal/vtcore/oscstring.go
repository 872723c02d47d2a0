package vtcore

import "github.com/charmbracelet/x/ansi/parser"

// oscString collects an OSC string outside x/ansi's parser. The parser
// takes any 0x9C byte as the 8-bit String Terminator, but in UTF-8 that byte
// is also a continuation byte: Claude Code's title "✳ Claude Code" (✳ is
// E2 9C B3) would end the OSC early and print the rest of the title on the
// screen. xterm in UTF-8 mode does not read 8-bit controls out of UTF-8
// text; neither do we. Everything else follows x/ansi's transition table.
type oscString struct {
	active bool
	data   []byte
	need   int // UTF-8 continuation bytes still expected
}

func (t *Terminal) beginOSC() {
	t.osc.active = true
	t.osc.data = t.osc.data[:0]
	t.osc.need = 0
}

// consumeOSC feeds bytes of an active OSC string and returns how many it
// took; the string ends at BEL, at ESC (which starts the next sequence, ST
// included), at a 0x9C that is not inside a UTF-8 character, or is
// cancelled by CAN or SUB.
func (t *Terminal) consumeOSC(p []byte) int {
	for k, c := range p {
		switch {
		case c == 0x07:
			t.dispatchOSC()
			return k + 1
		case c == 0x1b:
			t.dispatchOSC()
			t.parser.Advance(c)
			return k + 1
		case c == 0x18 || c == 0x1a:
			// Cancelled: nothing is dispatched or executed (as x/ansi).
			t.osc.active = false
			return k + 1
		case c == 0x9c && t.osc.need == 0:
			t.dispatchOSC()
			return k + 1
		case c < 0x20:
			// Other C0 controls are ignored inside the string.
		default:
			if c == 0x9c {
				t.diverge() // x/vt would have ended the string here.
			}
			if len(t.osc.data) < maxDataSize {
				t.osc.data = append(t.osc.data, c)
			}
			switch {
			case c >= 0xf0:
				t.osc.need = 3
			case c >= 0xe0:
				t.osc.need = 2
			case c >= 0xc0:
				t.osc.need = 1
			case c >= 0x80 && t.osc.need > 0:
				t.osc.need--
			default:
				t.osc.need = 0
			}
		}
	}
	return len(p)
}

func (t *Terminal) dispatchOSC() {
	t.osc.active = false
	cmd := parser.MissingCommand
	for _, d := range t.osc.data {
		if d < '0' || d > '9' {
			break
		}
		if cmd == parser.MissingCommand {
			cmd = 0
		}
		cmd = cmd*10 + int(d-'0')
	}
	t.handleOsc(cmd, t.osc.data)
}
