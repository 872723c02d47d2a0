package vtcore

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// simpleRune reports whether r is a character that, next to another simple
// character, always has a grapheme-cluster boundary on that side (UAX #29
// GB999): Grapheme_Cluster_Break Other, not Extend, ZWJ, SpacingMark,
// Prepend, a regional indicator, Hangul, or an Indic conjunct letter. The
// ranges are a conservative subset (ASCII, Latin, Greek, Cyrillic,
// punctuation and symbols, box drawing, CJK, kana, most emoji), chosen for
// what terminal programs print most; anything else goes to the segmenter.
func simpleRune(r rune) bool {
	switch {
	case r < 0x7f:
		return r >= 0x20
	case r < 0x300:
		return r >= 0xa0 && r != 0xad
	case r < 0x530:
		return r >= 0x370 && r <= 0x3ff || r >= 0x400 && r <= 0x482 || r >= 0x48a
	case r < 0x2000:
		return false
	case r < 0x3000:
		return r >= 0x2010 && r <= 0x2027 || r >= 0x2030 && r <= 0x205e || r >= 0x2070 && r <= 0x20c0 || r >= 0x2100 && r <= 0x2bff
	case r < 0xa000:
		return r <= 0x3029 || r >= 0x3030 && r <= 0x303f || r >= 0x3041 && r <= 0x3096 || r >= 0x309b && r <= 0x30ff || r >= 0x4e00
	case r < 0x1f300:
		return r >= 0xff01 && r <= 0xff9d
	default:
		return r <= 0x1f3fa || r >= 0x1f400 && r <= 0x1faff
	}
}

// widthCacheSize is the number of slots of the per-terminal width cache.
const widthCacheSize = 256

// widthSlot remembers the widths of one code point: as a cluster of its
// own (ansi.GraphemeWidth) and as wcwidth counts it.
type widthSlot struct {
	r     rune
	w, wc int8
}

// nextCluster returns the first grapheme cluster of g and its width, as
// ansi.FirstGraphemeCluster does with ansi.GraphemeWidth, without running
// the segmenter when the first two characters are simple.
func (t *Terminal) nextCluster(g []byte) ([]byte, int) {
	r, n := utf8.DecodeRune(g)
	if simpleRune(r) {
		if n == len(g) {
			return g, t.runeWidth(r, g[:n])
		}
		if r2, _ := utf8.DecodeRune(g[n:]); simpleRune(r2) {
			return g[:n], t.runeWidth(r, g[:n])
		}
	}
	return ansi.FirstGraphemeCluster(g, ansi.GraphemeWidth)
}

// runeWidth is the width of the single-rune cluster b (r encoded), cached.
func (t *Terminal) runeWidth(r rune, b []byte) int {
	return int(t.widthSlot(r).w)
}

// codePointWidth is r's width as wcwidth counts it, cached.
func (t *Terminal) codePointWidth(r rune) int {
	return int(t.widthSlot(r).wc)
}

func (t *Terminal) widthSlot(r rune) *widthSlot {
	if t.widths == nil {
		t.widths = new([widthCacheSize]widthSlot)
	}
	slot := &t.widths[uint32(r)%widthCacheSize]
	if slot.r == r && r != 0 {
		return slot
	}
	var b [utf8.UTFMax]byte
	enc := utf8.AppendRune(b[:0], r)
	_, w := ansi.FirstGraphemeCluster(enc, ansi.GraphemeWidth)
	*slot = widthSlot{r: r, w: int8(w), wc: int8(wcwidth(r))}
	return slot
}

// wcwidth is a code point's width as glibc's wcwidth gives it in a UTF-8
// locale (which tmux, bash's readline and vim follow): x/ansi's
// runewidth-based count, but the Hangul medial vowels and final consonants
// take no column of their own (they join the initial consonant's cell).
func wcwidth(r rune) int {
	if r >= 0x1160 && r <= 0x11ff || r >= 0xd7b0 && r <= 0xd7ff {
		return 0
	}
	return max(ansi.StringWidthWc(string(r)), 0)
}
