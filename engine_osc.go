package ptywright

import "bytes"

// oscFilter keeps UTF-8 text inside OSC strings away from x/ansi's parser.
// That parser ends an OSC string at any 0x9C byte, the 8-bit C1 String
// Terminator, even where the byte is the middle of a UTF-8 character: the
// window title "✳ Claude Code" (E2 9C B3 ...) that Claude Code sets on every
// spinner tick ends after E2, and the rest of the title is then printed onto
// the grid at the cursor. A UTF-8 terminal never reads C1 controls there.
//
// The filter sits in front of the emulator. OSC strings whose payload is
// plain ASCII (or UTF-8 without bytes 0x80-0x9F) pass through unchanged, so
// the emulator still handles them. The others are held back until their BEL
// or ESC \ terminator: a title (OSC 0 or 2) is recorded through setTitle;
// any other such OSC (a hyperlink with a UTF-8 URL, say) is dropped, which
// loses its effect but never puts its bytes on the screen.
type oscFilter struct {
	state oscState
	// held is the OSC being collected, from its ESC ]; or the ESC that may
	// start one.
	held []byte
	out  []byte
}

type oscState uint8

const (
	oscGround       oscState = iota
	oscEscape                // an ESC was held back
	oscString                // inside ESC ] ...
	oscStringEscape          // inside an OSC, after ESC (maybe the ESC \ terminator)
)

// maxHeldOSC bounds an OSC held back; a longer one is handed to the
// emulator as it is.
const maxHeldOSC = 64 << 10

// filter returns what the emulator should parse of p. The result is valid
// until the next call.
func (f *oscFilter) filter(p []byte, setTitle func(string)) []byte {
	if f.state == oscGround && bytes.IndexByte(p, 0x1b) < 0 {
		return p
	}
	f.out = f.out[:0]
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch f.state {
		case oscGround:
			j := bytes.IndexByte(p[i:], 0x1b)
			if j < 0 {
				f.out = append(f.out, p[i:]...)
				return f.out
			}
			f.out = append(f.out, p[i:i+j]...)
			i += j
			f.held = append(f.held[:0], 0x1b)
			f.state = oscEscape
		case oscEscape:
			if b == ']' {
				f.held = append(f.held, b)
				f.state = oscString
				continue
			}
			f.out = append(f.out, f.held...)
			f.held = f.held[:0]
			f.state = oscGround
			i-- // b is ordinary input (or another ESC)
		case oscString:
			switch b {
			case 0x07:
				f.finish([]byte{0x07}, setTitle)
			case 0x1b:
				f.state = oscStringEscape
			default:
				f.held = append(f.held, b)
				if len(f.held) > maxHeldOSC {
					f.out = append(f.out, f.held...)
					f.held = f.held[:0]
					f.state = oscGround
				}
			}
		case oscStringEscape:
			if b == '\\' {
				f.finish([]byte{0x1b, '\\'}, setTitle)
				continue
			}
			// An ESC inside the string aborts it: let the emulator see
			// what came (unless it is what the emulator would misread),
			// then treat the ESC afresh.
			if !hasC1Byte(f.held[2:]) {
				f.out = append(f.out, f.held...)
			}
			f.held = append(f.held[:0], 0x1b)
			f.state = oscEscape
			i--
		}
	}
	return f.out
}

// finish ends the held OSC with its terminator.
func (f *oscFilter) finish(term []byte, setTitle func(string)) {
	payload := f.held[2:]
	if !hasC1Byte(payload) {
		f.out = append(f.out, f.held...)
		f.out = append(f.out, term...)
	} else if cmd, text, ok := bytes.Cut(payload, []byte{';'}); ok && (string(cmd) == "0" || string(cmd) == "2") {
		setTitle(string(text))
	}
	f.held = f.held[:0]
	f.state = oscGround
}

func hasC1Byte(p []byte) bool {
	for _, b := range p {
		if b >= 0x80 && b <= 0x9f {
			return true
		}
	}
	return false
}
