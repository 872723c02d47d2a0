package secrets

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Reading a screen's rows. A secret longer than the room left on a row is
// split over rows two ways, and neither leaves a row that matches a pattern
// on its own:
//
//   - the terminal wraps it (soft wrap): the row fills the width and the
//     text goes on at the start of the next row. The emulator keeps no
//     wrap flag, so a full row is taken to go on in the next one.
//   - the program wraps it (Claude Code, Codex lay out their prompt box and
//     messages themselves): the break can fall before the right edge and
//     the continuation row starts with an indent. What the real programs
//     do (testdata/fixtures/*/CAPTURES.md, "Long secrets"): a word longer
//     than a line is broken, Claude Code filling the row to its text edge,
//     Codex after a hyphen or, lacking one, at the edge; a shorter word
//     that does not fit is moved whole to the next row ("Bearer" at the end
//     of one row, the token on the next); continuation rows are indented
//     (two columns under "❯ ", "● ", "› ", "• ").
//
// Continues recognises the second from the geometry a greedy wrapper
// leaves: the next row's first word would not have fitted at the end of
// the row. A real line break passes that test only when the next line
// starts with a long word, and joining the two rows then only widens the
// search: a span still needs a pattern to match.

// maxContinuationIndent bounds the indent of a row that continues the one
// above (the programs use 2; nested list items more).
const maxContinuationIndent = 8

// wrapMargin is the widest right margin a program leaves when it wraps:
// Claude Code's prompt box breaks at cols-2, its transcript at cols-1 or
// cols, Codex at cols-1 or cols.
const wrapMargin = 2

// Continues reports whether next, the row under prev on a screen cols wide
// (cols <= 0: unknown, never), goes on with prev's text as a program that
// wraps its own lines lays it out: next is indented (1 to 8 spaces) and its
// first word would not have fitted on prev after a space. indent is the
// byte length of next's indent, which is not part of the text. glue says
// that a word was broken (prev ends with a hyphen, or reaches the edge with
// a word that together with next's first one is longer than a line): the
// rows join with nothing between them; otherwise a word was moved down and
// they join with a space. prev may carry trailing blanks (a row of cells).
func Continues(prev, next string, cols int) (indent int, glue, ok bool) {
	if cols <= 0 {
		return 0, false, false
	}
	for indent < len(next) && next[indent] == ' ' {
		indent++
	}
	if indent == 0 || indent > maxContinuationIndent || indent == len(next) {
		return 0, false, false
	}
	word := next[indent:]
	if sp := strings.IndexByte(word, ' '); sp >= 0 {
		word = word[:sp]
	}
	prev = strings.TrimRight(prev, " ")
	edge := cols - wrapMargin
	// A width is at most a length in bytes: most rows are ruled out
	// without measuring.
	if prev == "" || len(prev)+1+len(word) <= edge {
		return 0, false, false
	}
	w, ww := textWidth(prev), textWidth(word)
	if w+1+ww <= edge {
		return 0, false, false
	}
	last := prev[strings.LastIndexByte(prev, ' ')+1:]
	glue = prev[len(prev)-1] == '-' || w >= edge && textWidth(last)+ww > edge-indent
	return indent, glue, true
}

// fullRow reports whether row, cols (> 0) wide, fills the width.
// LeadIn returns the rows at the end of tail (the newest scrollback rows,
// oldest first) that go on, one into the next and the last into first (the
// screen's first row), as RowSpans reads rows: those a secret that wrapped
// off the top of the screen may start in. nil when the last does not go on
// into first.
func LeadIn(tail []string, first string, cols int) []string {
	if first == "" {
		return nil
	}
	k, next := len(tail), first
	for k > 0 {
		if _, _, ok := Continues(tail[k-1], next, cols); !ok && !fullRow(tail[k-1], cols) {
			break
		}
		k, next = k-1, tail[k-1]
	}
	if k == len(tail) {
		return nil
	}
	return tail[k:]
}

// FullRow reports whether row (a screen row's text) fills a screen cols
// wide: RowSpans reads it as going on in the next row.
func FullRow(row string, cols int) bool { return fullRow(row, cols) }

func fullRow(row string, cols int) bool {
	return cols > 0 && len(row) >= cols && textWidth(row) >= cols
}

// textWidth is ansi.StringWidth of a row of screen text, counted without
// segmenting graphemes when every character is one that is one column
// wide on its own (TestTextWidth): ASCII and the punctuation, arrows, box
// drawing, blocks and shapes TUIs draw with. It runs on most rows of
// every screen a wait redacts, so printable ASCII is passed eight bytes
// at a time, the two- and three-byte characters TUIs draw with are
// decoded here rather than by a call, and a rule ("────") is counted by
// comparing each character's bytes with the first's.
func textWidth(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		for i+8 <= len(s) && printable8(load8(s, i)) {
			i += 8
			n += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			i++
			continue
		case c >= 0xe0 && c < 0xf0 && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80:
			// At least U+0800: shorter is an overlong form, invalid.
			if r := rune(c&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f); r >= 0x800 && narrowRune(r) {
				// A rule or a bar repeats it: count the repeats by
				// comparing bytes.
				b1, b2 := s[i+1], s[i+2]
				for i += 3; i+2 < len(s) && s[i] == c && s[i+1] == b1 && s[i+2] == b2; i += 3 {
					n++
				}
				continue
			}
		case c >= 0xc2 && c < 0xe0 && i+1 < len(s) && s[i+1]&0xc0 == 0x80:
			if narrowRune(rune(c&0x1f)<<6 | rune(s[i+1]&0x3f)) {
				i += 2
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !narrowRune(r) {
			return ansi.StringWidth(s)
		}
		i += size
	}
	return n
}

// load8 reads s[i:i+8] as a little-endian word (the compiler makes it one
// load).
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// printable8 reports whether the eight bytes of w are all printable ASCII
// (0x20 to 0x7e): none has its top bit, each is at least 0x20 (adding 0x60
// sets the top bit), none is 0x7f (adding 1 would). No addition carries
// into the next byte once no top bit is set.
func printable8(w uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	return w&tops == 0 && (w+0x60*ones)&tops == tops && (w+ones)&tops == 0
}

// narrowRune reports whether r is one column wide whatever follows it,
// short of a combining mark or variation selector (which narrowRune
// rejects, so the row is measured by ansi).
func narrowRune(r rune) bool {
	switch {
	case r >= 0xa0 && r < 0x300 && r != 0xad: // Latin-1 and Latin Extended, IPA, modifier letters (not the soft hyphen)
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205e: // dashes, quotes, bullets, ellipsis, ›
	case r >= 0x2190 && r <= 0x21ff: // arrows
	case r >= 0x2500 && r <= 0x25fc: // box drawing, blocks, geometric shapes (◽ ◾ after are wide)
	case r == 0x23bf, r == 0x23f8, r == 0x26a0, r == 0x2714, r == 0x2717, r == 0x2722, r == 0x273b, r == 0x276f: // ⎿ ⏸ ⚠ ✔ ✗ ✢ ✻ ❯
	default:
		return false
	}
	return true
}

// RowsJoin reports whether a row of text (rows joined by "\n") other than
// the last fills cols columns or Continues in the next: whether RowSpans
// can find more than the text read as one.
func RowsJoin(text string, cols int) bool {
	if cols <= 0 {
		return false
	}
	row, rest, more := strings.Cut(text, "\n")
	for more {
		var next string
		next, rest, more = strings.Cut(rest, "\n")
		if fullRow(row, cols) {
			return true
		}
		if _, _, ok := Continues(row, next, cols); ok {
			return true
		}
		row = next
	}
	return false
}

// RowSpans returns the spans (byte ranges, merged) to hide in each row of a
// screen cols wide: those spans finds in the rows read as one text, one
// row per line (a private key block spans lines), and a row's part of a
// secret that a wrap split across rows: rows that are full (full(i); nil:
// fullRow) are read as going on in the next row, and rows that Continues
// links are read as one line without the continuation's indent.
func RowSpans(rows []string, cols int, full func(i int) bool, spans func(string) [][2]int) [][][2]int {
	if full == nil {
		full = func(i int) bool { return fullRow(rows[i], cols) }
	}
	out := make([][][2]int, len(rows))
	// spread maps the spans of the rows that segs name, joined as they
	// say, onto those rows.
	type seg struct {
		row, from, to int    // the row's text rows[row][from:to]
		sep           string // what goes before it in the joined text
		at            int    // where rows[row][0] would be in the joined text
	}
	var segs []seg
	spread := func() {
		n := 0
		for _, sg := range segs {
			n += len(sg.sep) + sg.to - sg.from
		}
		var b strings.Builder
		b.Grow(n)
		for k := range segs {
			sg := &segs[k]
			b.WriteString(sg.sep)
			sg.at = b.Len() - sg.from
			b.WriteString(rows[sg.row][sg.from:sg.to])
		}
		found := spans(b.String())
		for k := 0; k < len(segs) && len(found) > 0; k++ {
			sg := segs[k]
			for _, sp := range found {
				if from, to := max(sp[0], sg.at+sg.from), min(sp[1], sg.at+sg.to); from < to {
					out[sg.row] = append(out[sg.row], [2]int{from - sg.at, to - sg.at})
				}
			}
		}
	}
	for i := range rows {
		sep := "\n"
		if i == 0 {
			sep = ""
		}
		segs = append(segs, seg{row: i, to: len(rows[i]), sep: sep})
	}
	spread()
	for i := 0; i < len(rows); {
		segs = append(segs[:0], seg{row: i, to: len(rows[i])})
		j := i
		for ; j+1 < len(rows); j++ {
			next := seg{row: j + 1, to: len(rows[j+1])}
			if indent, glue, ok := Continues(rows[j], rows[j+1], cols); ok {
				// The row's text ends at its last character (a row of
				// cells goes on in blanks); the next starts after its
				// indent.
				last := &segs[len(segs)-1]
				last.to = max(last.from, len(strings.TrimRight(rows[j], " ")))
				next.from, next.sep = indent, " "
				if glue {
					next.sep = ""
				}
				segs = append(segs, next)
			} else if full(j) {
				segs = append(segs, next)
			} else {
				break
			}
		}
		if j > i {
			spread()
		}
		i = j + 1
	}
	for k := range out {
		out[k] = MergeSpans(out[k])
	}
	return out
}

// minPiece is the shortest piece of a secret ScreenPieces returns: shorter
// ones could stand for ordinary text wherever they are looked for.
const minPiece = 6

// ScreenPieces returns each row's part of the secrets that RowSpans finds on
// the screen text (rows joined by "\n") cols wide, those of at least six
// bytes: the pieces a text quoting the screen may hold, laid out anew (a
// plugin strips a prompt's indents and joins the rows), which no pattern
// recognises on its own. nil when no row joins the next (then every secret
// is whole on its row) or there is no secret.
func ScreenPieces(text string, cols int, spans func(string) [][2]int) []string {
	_, pieces := RedactScreen(text, cols, spans, "")
	return pieces
}

// MergeSpans sorts spans and merges those that overlap or touch, so each
// merged run becomes a single replacement. It reuses spans' storage.
func MergeSpans(spans [][2]int) [][2]int {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		out = append(out, sp)
	}
	return out
}
