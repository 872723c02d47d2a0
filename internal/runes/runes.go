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
func ValidPrefix(p []byte) (n, runes int) {
	// Fast path: everything but a possibly incomplete final sequence is
	// valid, which is what a PTY read of well-formed output looks like.
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i > len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if utf8.Valid(p[:cut]) {
		return cut, Count(p[:cut])
	}
	for n < len(p) {
		if c := p[n]; c < utf8.RuneSelf {
			n++
			runes++
			continue
		}
		r, size := utf8.DecodeRune(p[n:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		n += size
		runes++
	}
	return n, runes
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
		cont += continuations(binary.LittleEndian.Uint64(b[i:]))
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
