package vtcore

import (
	"encoding/binary"
	"math/bits"
)

// Programs colour their output with a few dozen distinct SGR sequences,
// written over and over: a coloured screen is a short text run between two
// of them. What an SGR does depends only on its parameter bytes and on the
// pen it finds, so the memo keeps, for a sequence seen before, the pen it
// made from the pen it found, and a repeat costs a scan of its bytes
// instead of a parse, a dispatch and readStyle. A sequence whose first
// parameter is 0 (or missing) resets the pen first, so its result does not
// depend on the pen it finds ("absolute"): "\x1b[0m" after any colour is
// one entry.

// sgrMemoBits sizes the memo: 1<<sgrMemoBits entries of 56 bytes.
const sgrMemoBits = 7

// sgrMemoMaxLen is the longest parameter string the memo keeps: "38;2;255;255;255" is 16.
const sgrMemoMaxLen = 16

type sgrEntry struct {
	k0, k1   uint64 // the parameter bytes, little endian, zero padded
	n        int8   // their length plus one; 0 is an empty slot
	absolute bool
	from, to Style
}

// sgrKey scans b (what follows ESC [) for an SGR without a prefix or
// intermediates whose parameters fit the memo: digits, ':' and ';' (the
// bytes 0x30 to 0x3b) up to the final 'm'. It returns the parameters
// packed in two words, little endian and zero padded, and their length.
// It tests eight bytes at a time when b is long enough, as it is in the
// middle of a write.
func sgrKey(b []byte) (k0, k1 uint64, n int, ok bool) {
	if len(b) <= sgrMemoMaxLen {
		return sgrKeySlow(b)
	}
	x0 := binary.LittleEndian.Uint64(b)
	if f := firstNonParam(x0); f < 8 {
		return x0 & (1<<(8*f) - 1), 0, f, b[f] == 'm'
	}
	x1 := binary.LittleEndian.Uint64(b[8:])
	if f := firstNonParam(x1); f < 8 {
		return x0, x1 & (1<<(8*f) - 1), 8 + f, b[8+f] == 'm'
	}
	return x0, x1, sgrMemoMaxLen, b[sgrMemoMaxLen] == 'm'
}

// firstNonParam returns the index of the first byte of x (little endian)
// outside 0x30 to 0x3b, or 8. A borrow in x-0x30.. starts only at a byte
// below 0x30, a carry in x+0x44.. only at one above 0x3b or with its high
// bit set, so the lowest flagged byte is the first one out of range.
func firstNonParam(x uint64) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bad := ((x-0x30*ones)&^x | (x + 0x44*ones) | x) & highs
	return bits.TrailingZeros64(bad) / 8
}

// sgrKeySlow is sgrKey a byte at a time, for the end of a write.
func sgrKeySlow(b []byte) (k0, k1 uint64, n int, ok bool) {
	for ; n < len(b); n++ {
		c := b[n]
		if c == 'm' {
			return k0, k1, n, true
		}
		if c < '0' || c > ';' || n == sgrMemoMaxLen {
			return 0, 0, 0, false
		}
		if n < 8 {
			k0 |= uint64(c) << (8 * n)
		} else {
			k1 |= uint64(c) << (8 * (n - 8))
		}
	}
	return 0, 0, 0, false
}

// sgr handles the SGR at b, which sgrKey accepted as k0, k1, n, and returns
// the bytes it consumed: from the memo when it holds the sequence for this
// pen, else read directly (sgrDirect) or through the parser's path
// (fastCSI), remembering the result.
// An SGR that departs from x/vt (SGR 21) is never remembered, so every
// one is counted.
func (t *Terminal) sgr(b []byte, k0, k1 uint64, n int) int {
	if len(t.grapheme) > 0 {
		t.flushGrapheme() // in the pen before the sequence, as handleCsi does
	}
	if t.sgrRecall(k0, k1, n) {
		return n + 1
	}
	pen := &t.scr.cur.pen
	if t.sgrMemo == nil {
		t.sgrMemo = new([1 << sgrMemoBits]sgrEntry)
	}
	e := t.sgrSlot(k0, k1, n)
	from, divergences := *pen, t.divergences
	used := n + 1
	if !sgrDirect(b[:n], pen) {
		used = t.fastCSI(b)
	}
	if t.divergences == divergences {
		*e = sgrEntry{k0: k0, k1: k1, n: int8(n + 1), absolute: resetsFirst(b[:n]), from: from, to: t.scr.cur.pen}
	}
	return used
}

// sgrRecall applies the memo's entry for the SGR k0, k1, n to the pen and
// reports true when the memo holds one for this pen. It makes no call, so
// Write calls it first (when nothing is held back to flush) and the hit,
// the common case, costs no spilling of sgr's arguments around the calls
// of the miss.
func (t *Terminal) sgrRecall(k0, k1 uint64, n int) bool {
	if t.sgrMemo == nil {
		return false
	}
	pen := &t.scr.cur.pen
	e := t.sgrSlot(k0, k1, n)
	if int(e.n) == n+1 && e.k0 == k0 && e.k1 == k1 && (e.absolute || e.from == *pen) {
		*pen = e.to
		return true
	}
	return false
}

// sgrSlot is the memo's slot for the SGR k0, k1, n.
func (t *Terminal) sgrSlot(k0, k1 uint64, n int) *sgrEntry {
	return &t.sgrMemo[(k0*0x9e3779b97f4a7c15^k1*0xc2b2ae3d27d4eb4f^uint64(n))>>(64-sgrMemoBits)]
}

// resetsFirst reports whether the SGR parameters p start with 0 or a
// missing parameter, which resets the pen before anything else applies.
func resetsFirst(p []byte) bool {
	i := 0
	for i < len(p) && p[i] == '0' {
		i++
	}
	return i == len(p) || p[i] == ';' || p[i] == ':'
}
