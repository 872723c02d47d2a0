package main

import "bytes"

// replyFilter removes terminal-generated replies from what the real terminal
// sends as input, and passes every other byte through unchanged.
//
// In `run` the child's output goes both to the real terminal and to the
// session's own Screen, so a query the child writes (device attributes,
// cursor position, mode or colour report) is answered twice: once by our
// Screen and once by the real terminal through stdin. Our Screen's answer is
// the one that matches the child's PTY, so the real terminal's copy is
// dropped here. Focus events are dropped too: they describe the outer
// window, not anything the child asked the PTY for.
//
// Dropped, as complete sequences only:
//
//	ESC [ I, ESC [ O                   focus in / out
//	ESC [ ? Ps ; ... c                 primary device attributes
//	ESC [ > Ps ; ... c                 secondary device attributes
//	ESC [ row ; col R                  cursor position report (DSR 6)
//	ESC [ ? row ; col [; page] R       extended cursor position report
//	ESC [ [?] Ps ; Pm $ y              mode report (DECRQM)
//	ESC ] 10..19 ; rgb:... BEL or ST   default colour reports
//	ESC ] 4 ; n ; rgb:... BEL or ST    palette colour reports
//
// A CPR for row 1 and columns 2 to 16 has the same bytes as xterm's
// modified F3 (ESC [ 1 ; m R), which is therefore dropped as well: there is
// no way to tell them apart in the input alone.
//
// The filter is a streaming parser: a sequence may arrive split across
// reads. Bytes that might begin a reply are held until the sequence is
// complete, or until a byte shows it is not a reply (then they pass through
// at once), or until the caller gives up waiting and calls flush (a lone
// ESC key press). It is not safe for concurrent use.
type replyFilter struct {
	state   filterState
	pending []byte // the held bytes of a candidate reply, ESC included
}

type filterState uint8

const (
	stGround filterState = iota
	stEsc                // ESC seen
	stCSI                // ESC [ seen, collecting parameter and intermediate bytes
	stOSC                // ESC ] seen, collecting the string
	stOSCEsc             // ESC inside an OSC string: ST if '\' follows
)

// maxReplyLen bounds what the filter holds back. Real replies are under 64
// bytes; anything longer is passed through as not a reply.
const maxReplyLen = 128

const (
	esc = 0x1b
	bel = 0x07
)

// filter appends to dst the bytes of p that pass, and returns dst.
func (f *replyFilter) filter(dst, p []byte) []byte {
	for i := 0; i < len(p); i++ {
		if f.state == stGround {
			// Fast path: copy everything up to the next ESC.
			j := bytes.IndexByte(p[i:], esc)
			if j < 0 {
				return append(dst, p[i:]...)
			}
			dst = append(dst, p[i:i+j]...)
			i += j
		}
		dst = f.step(dst, p[i])
	}
	return dst
}

// step feeds one byte. A byte that ends a candidate without completing a
// reply releases the held bytes and is then fed again from ground, so that
// an ESC can start the next candidate.
func (f *replyFilter) step(dst []byte, b byte) []byte {
	switch f.state {
	case stGround:
		if b == esc {
			f.hold(stEsc, b)
			return dst
		}
		return append(dst, b)

	case stEsc:
		switch b {
		case '[':
			f.hold(stCSI, b)
			return dst
		case ']':
			f.hold(stOSC, b)
			return dst
		}
		return f.step(f.release(dst), b)

	case stCSI:
		switch {
		case b >= 0x20 && b <= 0x3f: // parameter or intermediate byte
			if len(f.pending) >= maxReplyLen {
				return f.step(f.release(dst), b)
			}
			f.pending = append(f.pending, b)
			return dst
		case b >= 0x40 && b <= 0x7e: // final byte
			f.pending = append(f.pending, b)
			if isCSIReply(f.pending[2:]) {
				f.reset()
				return dst
			}
			return f.release(dst)
		}
		return f.step(f.release(dst), b)

	case stOSC:
		switch {
		case b == bel:
			f.pending = append(f.pending, b)
			return f.endOSC(dst, f.pending[2:len(f.pending)-1])
		case b == esc:
			f.pending = append(f.pending, b)
			f.state = stOSCEsc
			return dst
		case b < 0x20 || b == 0x7f || len(f.pending) >= maxReplyLen:
			// Replies carry no other control bytes: someone is typing.
			return f.step(f.release(dst), b)
		}
		f.pending = append(f.pending, b)
		return dst

	case stOSCEsc:
		if b == '\\' {
			f.pending = append(f.pending, b)
			return f.endOSC(dst, f.pending[2:len(f.pending)-2])
		}
		// The ESC ended the string without ST: release what came before it
		// and let the ESC start a new candidate.
		held := f.pending[:len(f.pending)-1]
		dst = append(dst, held...)
		f.reset()
		return f.step(f.step(dst, esc), b)
	}
	return append(dst, b) // Unreachable: every state is handled above.
}

func (f *replyFilter) endOSC(dst, body []byte) []byte {
	if isOSCColorReply(body) {
		f.reset()
		return dst
	}
	return f.release(dst)
}

func (f *replyFilter) hold(st filterState, b byte) {
	f.state = st
	f.pending = append(f.pending, b)
}

// release passes the held bytes through and returns to ground.
func (f *replyFilter) release(dst []byte) []byte {
	dst = append(dst, f.pending...)
	f.reset()
	return dst
}

func (f *replyFilter) reset() {
	f.state = stGround
	f.pending = f.pending[:0]
}

// holding reports whether bytes are held back waiting for more input.
func (f *replyFilter) holding() bool { return len(f.pending) > 0 }

// flush gives up waiting: the held bytes pass through as they are.
func (f *replyFilter) flush(dst []byte) []byte { return f.release(dst) }

// isCSIReply classifies a complete CSI sequence, given without its ESC [.
func isCSIReply(seq []byte) bool {
	final := seq[len(seq)-1]
	body := seq[:len(seq)-1]
	switch final {
	case 'I', 'O':
		return len(body) == 0
	case 'c':
		if len(body) == 0 || (body[0] != '?' && body[0] != '>') {
			return false
		}
		n, ok := countParams(body[1:])
		return ok && n >= 1
	case 'R':
		if len(body) > 0 && body[0] == '?' { // DECXCPR may add the page
			n, ok := countParams(body[1:])
			return ok && (n == 2 || n == 3)
		}
		n, ok := countParams(body)
		return ok && n == 2
	case 'y':
		if len(body) == 0 || body[len(body)-1] != '$' {
			return false
		}
		body = body[:len(body)-1]
		if len(body) > 0 && body[0] == '?' {
			body = body[1:]
		}
		n, ok := countParams(body)
		return ok && n == 2
	}
	return false
}

// countParams checks that p is one or more non-empty decimal numbers
// separated by ';' and returns how many there are.
func countParams(p []byte) (n int, ok bool) {
	if len(p) == 0 {
		return 0, false
	}
	digits := 0
	for _, b := range p {
		switch {
		case b >= '0' && b <= '9':
			digits++
		case b == ';':
			if digits == 0 {
				return 0, false
			}
			n++
			digits = 0
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	return n + 1, true
}

// isOSCColorReply classifies a complete OSC string, given without its
// ESC ] and terminator: "1x;rgb:..." or "4;n;rgb:...".
func isOSCColorReply(body []byte) bool {
	ps, rest, ok := bytes.Cut(body, []byte{';'})
	if !ok {
		return false
	}
	switch string(ps) {
	case "10", "11", "12", "13", "14", "15", "16", "17", "18", "19":
	case "4":
		idx, color, ok := bytes.Cut(rest, []byte{';'})
		if !ok {
			return false
		}
		if n, ok := countParams(idx); !ok || n != 1 {
			return false
		}
		rest = color
	default:
		return false
	}
	return bytes.HasPrefix(rest, []byte("rgb:")) || bytes.HasPrefix(rest, []byte("rgba:"))
}
