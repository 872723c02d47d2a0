package secrets

import (
	"math/bits"
	"sort"
	"strings"
	"unicode/utf8"
)

// Secrets broken by escapes. A program may print a key whole with an
// escape sequence in its middle (a colour change, a hyperlink) or with a
// typo it erased ("X\b", "X\b \b": what a line editor echoes): the screen
// shows the key whole, while the raw stream (transcripts, output) holds
// it in two pieces that no pattern recognises on their own.
// ThroughEscapes finds secrets on the text as the terminal shows it
// (Visible) and maps them back onto the raw bytes, escapes inside
// included.

// ThroughEscapes returns spans(s), and the spans spans finds on s's
// Visible text mapped back onto s, sorted and merged, when an escape
// sequence or a backspace stands between two printable characters (inside
// what could be a word). Text without one, the common case, costs two
// byte scans more than spans(s).
func ThroughEscapes(s string, spans func(string) [][2]int) [][2]int {
	if !escapeInWord(s) {
		return spans(s)
	}
	v := visible(s)
	found := spans(v.text)
	out := spans(s) // what the raw text shows whole stays hidden whatever the view
	for _, sp := range found {
		out = append(out, [2]int{v.orig(sp[0]), v.orig(sp[1]-1) + 1})
	}
	return MergeSpans(out)
}

// escapeInWord reports whether s has a backspace, or an escape sequence
// the view drops (or a run of them) with a printable, non-blank byte on
// both sides.
//
// It runs on every text ThroughEscapes sees, where a TUI writes an escape
// every few bytes, so the common sequence, a CSI, is read here rather than
// through escapeEnd.
func escapeInWord(s string) bool {
	if strings.IndexByte(s, '\b') >= 0 {
		return true
	}
	for i := strings.IndexByte(s, 0x1b); i >= 0; {
		j, drop := i, true
		for j < len(s) && s[j] == 0x1b {
			if j+1 < len(s) && s[j+1] == '[' {
				// escapeEnd's CSI: parameters and intermediates, a final.
				k := j + 2
				for k < len(s) && s[k]-0x20 <= 0x3f-0x20 {
					k++
				}
				if k < len(s) && s[k]-0x40 <= 0x7e-0x40 {
					drop = drop && (s[k] == 'm' || s[k] == 'K')
					k++
				}
				j = k
				continue
			}
			var d bool
			j, d = escapeEnd(s, j)
			drop = drop && d
		}
		if drop && i > 0 && wordByte(s[i-1]) && j < len(s) && wordByte(s[j]) {
			return true
		}
		// The next sequence is often a few bytes on: looked for a word
		// at a time that far, which costs less than a call. The lowest
		// byte flagged is the first ESC (a false flag only follows a
		// true one).
		i = -1
		if j+16 <= len(s) {
			if x := load8(s, j) ^ 0x1b*ones8; (x-ones8)&^x&(0x80*ones8) != 0 {
				i = j + bits.TrailingZeros64((x-ones8)&^x&(0x80*ones8))/8
			} else if x := load8(s, j+8) ^ 0x1b*ones8; (x-ones8)&^x&(0x80*ones8) != 0 {
				i = j + 8 + bits.TrailingZeros64((x-ones8)&^x&(0x80*ones8))/8
			} else if k := strings.IndexByte(s[j+16:], 0x1b); k >= 0 {
				i = j + 16 + k
			}
			continue
		}
		for k := j; k < len(s); k++ {
			if s[k] == 0x1b {
				i = k
				break
			}
		}
	}
	return false
}

// ones8 has a one in each byte.
const ones8 = 0x0101010101010101

// wordByte: printable and not blank (UTF-8 bytes of other scripts count).
func wordByte(c byte) bool { return c > 0x20 && c != 0x7f }

// InWord reports whether the escape sequence at s[i] (an ESC), or the
// backspace there, may stand inside a secret as ThroughEscapes reads it:
// a backspace, or a sequence the view drops right after a printable,
// non-blank byte or a backspace. A stream must not cut there.
func InWord[T ~string | ~[]byte](s T, i int) bool {
	if s[i] == '\b' {
		return true
	}
	_, drop := escapeEnd(s, i)
	return drop && i > 0 && (wordByte(s[i-1]) || s[i-1] == '\b') // "X\b\x1b[K": an erase
}

// BellStart returns where the string sequence (OSC...) that the BEL at
// s[i] ends starts, when InWord holds there, or -1: a stream must not cut
// after that BEL either.
func BellStart[T ~string | ~[]byte](s T, i int) int {
	for e := i - 1; e >= max(0, i-1024); e-- {
		if s[e] == 0x1b {
			if end, _ := escapeEnd(s, e); end == i+1 && InWord(s, e) {
				return e
			}
			return -1
		}
	}
	return -1
}

// TrimShownEnd returns s without what ends it that a terminal shows
// nothing of: trailing escape sequences the view drops that follow a word
// (InWord), and characters erased with a backspace. A text that ends with
// "sk-ant-api03-Q7\x1b[1m" may be the start of a secret as much as one
// that ends with "sk-ant-api03-Q7".
func TrimShownEnd(s string) string {
	for len(s) > 0 {
		if s[len(s)-1] == '\b' {
			s = s[:len(s)-1]
			if r, size := utf8.DecodeLastRuneInString(s); size > 0 && r >= 0x20 && r != 0x7f {
				s = s[:len(s)-size]
			}
			continue
		}
		e := strings.LastIndexByte(s[max(0, len(s)-64):], 0x1b)
		if e < 0 {
			return s
		}
		e += max(0, len(s)-64)
		if end, _ := escapeEnd(s, e); end != len(s) || !InWord(s, e) {
			return s
		}
		s = s[:e]
	}
	return s
}

// escapeEnd returns where the escape sequence at s[i] (an ESC) ends: after
// the final byte of a CSI ("ESC [ params intermediates final") or of
// "ESC intermediates final", after the BEL or ST ending an OSC, DCS, APC,
// PM or SOS string; len(s) when it is cut off. drop says the terminal
// shows text around it as one run: a colour change (SGR), an erase to the
// end of the line (what follows a backspace), a string (a hyperlink, a
// title), a character set designation. A sequence that moves the cursor
// separates what is before it from what is after.
func escapeEnd[T ~string | ~[]byte](s T, i int) (end int, drop bool) {
	j := i + 1
	if j >= len(s) {
		return len(s), true
	}
	switch s[j] {
	case '[':
		j++
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1, s[j] == 'm' || s[j] == 'K'
		}
		return j, true
	case ']', 'P', '_', '^', 'X':
		for j++; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, true
			}
			if s[j] == 0x1b {
				if j+1 < len(s) && s[j+1] == '\\' {
					return j + 2, true
				}
				return j, true // an unterminated string: the next sequence starts
			}
		}
		return len(s), true
	}
	k := j
	for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
		k++
	}
	if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
		return k + 1, k > j || s[k] == '\\' // a character set, or the ST ending a string
	}
	return k, true
}

// view is text as a terminal shows it, with the way back to the raw text.
type view struct {
	text string
	// segs: from text byte segs[k].at on, text byte i is raw byte
	// segs[k].raw + i - segs[k].at (until the next seg).
	segs []viewSeg
}

type viewSeg struct{ at, raw int }

// orig maps a byte of the view's text to the raw byte it came from.
func (v *view) orig(i int) int {
	k := sort.Search(len(v.segs), func(k int) bool { return v.segs[k].at > i }) - 1
	return v.segs[k].raw + i - v.segs[k].at
}

// visible returns s without the escape sequences escapeEnd drops, and with the character
// a backspace steps back over removed along with the backspace (the next
// character overwrites it, or an erase does: "X\b", "X\b \b", "X\b\e[K").
// Other control characters stay.
func visible(s string) view {
	b := make([]byte, 0, len(s))
	// A segment starts after each escape sequence or backspace, at most.
	segs := make([]viewSeg, 1, 1+strings.Count(s, "\x1b")+strings.Count(s, "\b"))
	resume := func(raw int) {
		// Segments past the view's end were popped by a backspace.
		for len(segs) > 1 && segs[len(segs)-1].at >= len(b) {
			segs = segs[:len(segs)-1]
		}
		segs = append(segs, viewSeg{len(b), raw})
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == 0x1b:
			end, drop := escapeEnd(s, i)
			if !drop {
				b = append(b, s[i:end]...) // kept: it breaks a run
				i = end
				continue
			}
			i = end
			resume(i)
		case c == '\b':
			if r, size := utf8.DecodeLastRune(b); size > 0 && r >= 0x20 && r != 0x7f {
				b = b[:len(b)-size]
			}
			i++
			resume(i)
		default:
			// The text up to the next escape or backspace, as it is.
			j := i + 1
			for j < len(s) && s[j] != 0x1b && s[j] != '\b' {
				j++
			}
			b = append(b, s[i:j]...)
			i = j
		}
	}
	return view{text: string(b), segs: segs}
}
