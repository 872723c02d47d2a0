package vtcore

// sgrDirect applies the SGR parameters p (what sgrKey accepted: digits,
// ':' and ';') to pen as readStyle would after the parser had split them,
// for the forms programs write: numbers of at most three digits separated
// by ';', colours as 38/48/58 ;5;N or ;2;R;G;B. Anything else (a ':', an
// empty or longer field, an incomplete colour, SGR 21, which is counted as
// a departure) reports false with pen untouched, for the general path. A
// colour cycling through the palette or through RGB values misses the
// memo on every sequence; this keeps such a miss cheap.
//
// The numbers are read by sgrNumber, a function of the slice and an index
// that stays in registers (a reader struct behind a pointer reloaded both
// on every byte), and dispatched by a switch on constants, which compiles
// to a jump table instead of a chain of comparisons.
func sgrDirect(p []byte, pen *Style) bool {
	if len(p) == 0 {
		*pen = Style{}
		return true
	}
	if p[len(p)-1] == ';' {
		return false // a missing last parameter: a reset readStyle does after the rest
	}
	if len(p) >= 6 && p[1] == '8' && p[2] == ';' && p[4] == ';' && p[0] >= '3' && p[0] <= '5' {
		// A colour alone (38, 48 or 58), the miss the memo sees most: a
		// colour cycling through the palette or RGB values. Read without
		// the loop's first two numbers and its dispatch; anything more
		// (or less) is left to the loop.
		if c, next, ok := sgrColor(p, 3); ok && next == len(p) {
			switch p[0] {
			case '3':
				pen.Fg = c
			case '4':
				pen.Bg = c
			default:
				pen.UnderlineColor = c
			}
			return true
		}
	}
	st := *pen
	for i := 0; i < len(p); {
		v, next, ok := sgrNumber(p, i)
		if !ok {
			return false
		}
		i = next
		switch v {
		case 0:
			st = Style{}
		case 4:
			st.Underline = UnderlineSingle
		case 1, 2, 3, 5, 6, 7, 8, 9:
			st.Attrs |= sgrAttrs[v]
		case 21:
			return false
		case 22:
			st.Attrs &^= AttrBold | AttrFaint
		case 23:
			st.Attrs &^= AttrItalic
		case 24:
			st.Underline = UnderlineNone
		case 25:
			st.Attrs &^= AttrBlink | AttrRapidBlink
		case 27:
			st.Attrs &^= AttrReverse
		case 28:
			st.Attrs &^= AttrConceal
		case 29:
			st.Attrs &^= AttrStrikethrough
		case 30, 31, 32, 33, 34, 35, 36, 37:
			st.Fg = IndexedColor(uint8(v - 30))
		case 39:
			st.Fg = DefaultColor
		case 40, 41, 42, 43, 44, 45, 46, 47:
			st.Bg = IndexedColor(uint8(v - 40))
		case 49:
			st.Bg = DefaultColor
		case 59:
			st.UnderlineColor = DefaultColor
		case 90, 91, 92, 93, 94, 95, 96, 97:
			st.Fg = IndexedColor(uint8(v - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			st.Bg = IndexedColor(uint8(v - 100 + 8))
		case 38, 48, 58:
			c, next, ok := sgrColor(p, i)
			if !ok {
				return false
			}
			i = next
			switch v {
			case 38:
				st.Fg = c
			case 48:
				st.Bg = c
			default:
				st.UnderlineColor = c
			}
		}
		// Any other number is one readStyle ignores.
	}
	*pen = st
	return true
}

// sgrAttrs are the attributes SGR 1 to 9 set (4, the underline, aside).
var sgrAttrs = [10]Attr{1: AttrBold, 2: AttrFaint, 3: AttrItalic, 5: AttrBlink,
	6: AttrRapidBlink, 7: AttrReverse, 8: AttrConceal, 9: AttrStrikethrough}

// sgrNumber reads the number of one to three digits at p[i] and the ';'
// after it (none at the end of p), and returns it with the index past
// them; ok is false for anything else.
func sgrNumber(p []byte, i int) (v, next int, ok bool) {
	// Unrolled: a loop's bounds and count tests cost more than the digits.
	if i >= len(p) || p[i]-'0' > 9 {
		return 0, 0, false
	}
	v, i = int(p[i]-'0'), i+1
	if i < len(p) && p[i]-'0' <= 9 {
		v, i = v*10+int(p[i]-'0'), i+1
		if i < len(p) && p[i]-'0' <= 9 {
			v, i = v*10+int(p[i]-'0'), i+1
		}
	}
	// What follows is ';' or nothing: a fourth digit or a ':' is not.
	if i < len(p) {
		if p[i] != ';' {
			return 0, 0, false
		}
		i++
	}
	return v, i, true
}

// sgrColor reads what follows 38, 48 or 58 from p[i]: 5;N or 2;R;G;B,
// each value cut to eight bits as readStyleColor cuts it.
func sgrColor(p []byte, i int) (c Color, next int, ok bool) {
	kind, i, ok := sgrNumber(p, i)
	if !ok {
		return 0, 0, false
	}
	switch kind {
	case 5:
		n, i, ok := sgrNumber(p, i)
		return IndexedColor(uint8(n)), i, ok
	case 2:
		r, i, ok1 := sgrNumber(p, i)
		if !ok1 {
			return 0, 0, false
		}
		g, i, ok2 := sgrNumber(p, i)
		if !ok2 {
			return 0, 0, false
		}
		b, i, ok3 := sgrNumber(p, i)
		return RGBColor(uint8(r), uint8(g), uint8(b)), i, ok3
	}
	return 0, 0, false
}
