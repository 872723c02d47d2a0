package rpc

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendOutputNotification appends the session.output notification for p
// to dst, byte for byte what encodeNotification(notifyOutput, p) gives. It
// is the one notification that grows with the output, and escaping its
// text was the largest cost of the JSON-RPC output path: encoding/json
// looks at every byte in turn, where most output is long runs of bytes
// JSON leaves alone, which this passes over eight at a time.
func appendOutputNotification(dst []byte, p outputParams) []byte {
	const head = `{"jsonrpc":"` + wireVersion + `","method":"` + notifyOutput + `","params":{"session":`
	// Room for the text's escape sequences, whose ESC becomes \u001b (a
	// count is cheap next to growing the frame and copying it), and for
	// a line break every 32 bytes or so; the escaping grows it if the
	// text needs more.
	need := len(head) + len(p.Session) + len(p.Output) + 5*strings.Count(p.Output, "\x1b") + len(p.Output)/16 + 64
	if cap(dst)-len(dst) < need {
		dst = append(make([]byte, 0, len(dst)+need), dst...)
	}
	dst = append(dst, head...)
	dst = appendJSONString(dst, p.Session)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendUint(dst, p.Sequence, 10)
	dst = append(dst, `,"output":`...)
	dst = appendJSONString(dst, p.Output)
	if p.Dropped {
		dst = append(dst, `,"dropped":true`...)
	}
	return append(dst, "}}"...)
}

// appendChangedNotification appends the session.changed notification for
// p to dst, byte for byte what encodeNotification(notifyChanged, p) gives.
func appendChangedNotification(dst []byte, p changedParams) []byte {
	const head = `{"jsonrpc":"` + wireVersion + `","method":"` + notifyChanged + `","params":{"session":`
	dst = append(dst, head...)
	dst = appendJSONString(dst, p.Session)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendUint(dst, p.Sequence, 10)
	return append(dst, "}}"...)
}

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping off (marshal): '"' and '\\' escaped, control bytes as
// \n \r \t \b \f or \u00XX, U+2028 and U+2029 as \u2028 and \u2029, each
// byte of invalid UTF-8 as \ufffd, everything else as is.
//
// It copies eight bytes at a time, special or not, into room it keeps
// ahead of itself, then moves its end back to the first special byte: a
// TUI's output, with an escape every few bytes, costs no call to memmove
// per run between them, and the UTF-8 is checked in the same pass, only
// where a byte is not ASCII.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	// buf is dst with all its room; n is where the next byte goes. At the
	// top of the loop there are at least escSlack bytes of room past n.
	buf, n := dst[:cap(dst)], len(dst)
	for i := 0; i < len(s); {
		if len(buf)-n < escSlack {
			buf = slices.Grow(buf[:n], escSlack+(len(s)-i)+(len(s)-i)/4)
			buf = buf[:cap(buf)]
		}
		if i+8 <= len(s) {
			b := s[i : i+8]
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			binary.LittleEndian.PutUint64(buf[n:], w)
			m := specialBytes(w)
			if m == 0 {
				i, n = i+8, n+8
				continue
			}
			k := bits.TrailingZeros64(m) / 8
			i, n = i+k, n+k
		}
		// s[i] may be special: always in the word case, maybe in the tail.
		c := s[i]
		if c < utf8.RuneSelf {
			e := jsonEscapes[c]
			if e == 0 {
				buf[n] = c
				i, n = i+1, n+1
				continue
			}
			binary.LittleEndian.PutUint64(buf[n:], e)
			n += int(e >> 56)
			i++
			continue
		}
		// Box drawing and most other non-ASCII a TUI draws are three-byte
		// runes with a lead byte of E1 to EC, EE or EF, which any two
		// continuation bytes complete validly.
		// A run of them is copied here without going back to the words.
		if three(s, i) {
			for {
				buf[n], buf[n+1], buf[n+2] = s[i], s[i+1], s[i+2]
				i, n = i+3, n+3
				if len(buf)-n < escSlack || !three(s, i) {
					break
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += copy(buf[n:], `\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += copy(buf[n:], `\u202`)
			buf[n] = hexDigits[r&0xf]
			n++
		default:
			n += copy(buf[n:], s[i:i+size])
		}
		i += size
	}
	return append(buf[:n], '"')
}

// three reports whether a valid three-byte rune other than U+2028 and
// U+2029 starts at s[i] with a lead byte of E1 to EC, EE or EF.
func three(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	c, c1, c2 := s[i], s[i+1], s[i+2]
	return c >= 0xe1 && c <= 0xef && c != 0xed && c1&0xc0 == 0x80 && c2&0xc0 == 0x80 &&
		(c != 0xe2 || c1 != 0x80 || c2&^1 != 0xa8)
}

// escSlack is the room appendJSONString keeps ahead of its end: a word or
// an escape (at most eight bytes) written as one.
const escSlack = 16

// jsonEscapes holds, for each ASCII byte that JSON escapes, its escape in
// the low bytes (little-endian) and the escape's length in the top byte;
// 0 for the others.
var jsonEscapes = func() (t [utf8.RuneSelf]uint64) {
	for c := range utf8.RuneSelf {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		var e [8]byte
		k := copy(e[:], appendEscapedByte(nil, byte(c)))
		e[7] = byte(k)
		t[c] = binary.LittleEndian.Uint64(e[:])
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialBytes sets the top bit of the first byte of w (the lowest) that
// appendJSONString must look at, if any: below 0x20, '"', '\\', or 0x80
// and above (UTF-8 to check, U+2028 and U+2029 to escape). Bits above it
// may be set for bytes that are not special (a borrow carries into the
// next byte only from a byte that is), so only the lowest counts.
func specialBytes(w uint64) uint64 {
	q := w ^ '"'*lsb
	b := w ^ '\\'*lsb
	return ((w-0x20*lsb)&^w | (q-lsb)&^q | (b-lsb)&^b | w) & msb
}

const hexDigits = "0123456789abcdef"

// appendEscapedByte appends the JSON escape of an ASCII byte that needs one.
func appendEscapedByte(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
