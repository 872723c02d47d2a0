// Package runes walks valid UTF-8 by counting rune-start bytes (any byte
// that is not 0b10xxxxxx), eight at a time where it can: the session's
// transcript counts its positions in runes and does this for every byte it
// keeps or drops, so it must cost far less than decoding.
package runes

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// ValidPrefix returns the length in bytes and runes of the longest prefix of p
// that is valid, complete UTF-8.
//
// It is one pass: ASCII runs go a word (eight bytes) at a time, and each
// other character is decoded once, checked and counted together. Before,
// utf8.Valid and then Count each read every byte, and Valid's byte loop
// between short ASCII runs cost about 20 instructions a byte on TUI
// output (box drawing, accents).
func ValidPrefix(p []byte) (n, runes int) {
	extra := 0 // bytes after the first of each multi-byte character
	for n < len(p) {
		if n+8 <= len(p) {
			// Pass the ASCII bytes in the next word, up to the first
			// that is not.
			h := binary.LittleEndian.Uint64(p[n:]) & hiBits
			if h == 0 {
				n += 8
				for n+8 <= len(p) && binary.LittleEndian.Uint64(p[n:])&hiBits == 0 {
					n += 8
				}
				continue
			}
			if k := bits.TrailingZeros64(h) >> 3; k > 0 {
				n += k
				continue
			}
		}
		c := p[n]
		if c < utf8.RuneSelf {
			n++
			continue
		}
		// Three- and two-byte characters (box drawing, CJK, most symbols;
		// accents) are checked inline; the rest, and anything invalid,
		// decoded.
		if c >= 0xe1 && c <= 0xef && c != 0xed && n+3 <= len(p) {
			if q := p[n : n+3 : n+3]; q[1]&0xc0 == 0x80 && q[2]&0xc0 == 0x80 {
				n += 3
				extra += 2
				// A run of it (a rule, "────"): while the eight bytes
				// from here equal the eight from three bytes back, two
				// more copies of it follow.
				if n+8 <= len(p) && p[n] == c {
					for n+8 <= len(p) && binary.LittleEndian.Uint64(p[n:]) == binary.LittleEndian.Uint64(p[n-3:]) {
						n += 6
						extra += 4
					}
				}
				continue
			}
		}
		if c >= 0xc2 && c <= 0xdf && n+1 < len(p) && p[n+1]&0xc0 == 0x80 {
			n += 2
			extra++
			continue
		}
		r, size := utf8.DecodeRune(p[n:])
		if r == utf8.RuneError && size == 1 {
			return n, n - extra // invalid, or cut short at the end
		}
		n += size
		extra += size - 1
	}
	return n, n - extra
}

const (
	hiBits = 0x8080808080808080
)

// continuations returns how many of the 8 bytes in w are UTF-8 continuation
// bytes (bit 7 set, bit 6 clear).
func continuations(w uint64) int {
	return bits.OnesCount64(w & hiBits &^ (w << 1))
}

// Count returns the number of runes in valid UTF-8 b.
func Count(b []byte) int {
	cont, i := 0, 0
	for ; i+8 <= len(b); i += 8 {
		if w := binary.LittleEndian.Uint64(b[i:]); w&hiBits != 0 {
			cont += continuations(w)
		}
	}
	for ; i < len(b); i++ {
		if !utf8.RuneStart(b[i]) {
			cont++
		}
	}
	return len(b) - cont
}

// Skip returns the byte length of the first n runes of valid UTF-8 b
// (len(b) if it has fewer).
func Skip(b []byte, n int) int {
	i := 0
	// Sixteen bytes a step while at least that many runes are left to
	// pass, then eight.
	for ; i+16 <= len(b) && n >= 16; i += 16 {
		w := b[i : i+16 : i+16]
		n -= 16 - continuations(binary.LittleEndian.Uint64(w)) - continuations(binary.LittleEndian.Uint64(w[8:]))
	}
	for ; i+8 <= len(b); i += 8 {
		starts := 8 - continuations(binary.LittleEndian.Uint64(b[i:]))
		if starts > n {
			break
		}
		n -= starts
	}
	// Pass n more rune starts; the next start ends the last skipped rune.
	for ; i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return len(b)
}

// Last returns the byte offset in valid UTF-8 b where its last n runes
// begin (0 if it has fewer).
func Last(b []byte, n int) int {
	if n <= 0 {
		return len(b)
	}
	i := len(b)
	for ; i >= 8; i -= 8 {
		starts := 8 - continuations(binary.LittleEndian.Uint64(b[i-8:]))
		if starts >= n {
			break
		}
		n -= starts
	}
	for i--; i >= 0; i-- {
		if utf8.RuneStart(b[i]) {
			if n--; n == 0 {
				return i
			}
		}
	}
	return 0
}
