package rpc

import (
	"math/bits"
	"strconv"
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
	// The transcript is valid UTF-8, so the text nearly always is: checked
	// once, the escaping need not decode it.
	appendStr := appendJSONString
	if !utf8.ValidString(p.Output) || !utf8.ValidString(p.Session) {
		appendStr = appendJSONStringSlow
	}
	// Room for an escape every 20 bytes or so (a TUI's redraws); append
	// grows it if the text needs more.
	need := len(head) + len(p.Session) + len(p.Output) + len(p.Output)/4 + 64
	if cap(dst)-len(dst) < need {
		dst = append(make([]byte, 0, len(dst)+need), dst...)
	}
	dst = append(dst, head...)
	dst = appendStr(dst, p.Session)
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendUint(dst, p.Sequence, 10)
	dst = append(dst, `,"output":`...)
	dst = appendStr(dst, p.Output)
	if p.Dropped {
		dst = append(dst, `,"dropped":true`...)
	}
	return append(dst, "}}"...)
}

// appendJSONString appends valid UTF-8 s as a JSON string the way
// encoding/json does with HTML escaping off (marshal): '"' and '\\'
// escaped, control bytes as \n \r \t \b \f or \u00XX, U+2028 and U+2029 as
// \u2028 and \u2029, everything else as is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := nextSpecial(s, 0); i < len(s); i = nextSpecial(s, i+1) {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, c)
			start = i + 1
		case i >= 2 && s[i-2] == 0xe2 && s[i-1] == 0x80:
			// U+2028 or U+2029 (E2 80 A8/A9); E2 and 80 are not special,
			// so start <= i-2.
			dst = append(dst, s[start:i-2]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xf])
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// nextSpecial returns the index of the first byte at or after i that may
// need escaping in valid UTF-8: below 0x20, '"', '\\', or 0xA8 or 0xA9,
// which end U+2028 and U+2029 (the lead byte 0xE2 is not looked for: it
// begins every box-drawing character a TUI draws); len(s) if none.
func nextSpecial(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if m := specialBytes(w); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0xa8 || c == 0xa9 {
			return i
		}
	}
	return len(s)
}

const (
	lsb  = 0x0101010101010101
	low7 = 0x7f7f7f7f7f7f7f7f
	msb  = 0x8080808080808080
)

// specialBytes sets the top bit of each byte of w that nextSpecial looks
// for, and of no other: the tests are exact per byte, without carries
// between bytes.
func specialBytes(w uint64) uint64 {
	below := ^((w&low7 + (0x80-0x20)*lsb) | w) & msb
	// 0xA8 and 0xA9 differ in the low bit only: one test with it cleared.
	return below | byteIs(w, '"') | byteIs(w, '\\') | byteIs(w&^lsb, 0xa8)
}

// byteIs sets the top bit of each byte of w equal to c.
func byteIs(w uint64, c byte) uint64 {
	x := w ^ uint64(c)*lsb
	return ^((x&low7 + low7) | x) & msb
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

// appendJSONStringSlow is appendJSONString for any text: each invalid
// UTF-8 byte becomes \ufffd, as encoding/json writes it.
func appendJSONStringSlow(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
