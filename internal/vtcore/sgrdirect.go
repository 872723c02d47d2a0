package vtcore

// sgrDirect applies the SGR parameters p (what sgrKey accepted: digits,
// ':' and ';') to pen as readStyle would after the parser had split them,
// for the forms programs write: numbers of at most three digits separated
// by ';', colours as 38/48/58 ;5;N or ;2;R;G;B. Anything else (a ':', an
// empty or longer field, an incomplete colour, SGR 21, which is counted as
// a departure) reports false with pen untouched, for the general path. A
// colour cycling through the palette or through RGB values misses the
// memo on every sequence; this keeps such a miss cheap.
func sgrDirect(p []byte, pen *Style) bool {
	if len(p) == 0 {
		*pen = Style{}
		return true
	}
	if p[len(p)-1] == ';' {
		return false // a missing last parameter: a reset readStyle does after the rest
	}
	st := *pen
	f := sgrFields{p: p}
	for !f.done() {
		v, ok := f.next()
		if !ok {
			return false
		}
		switch {
		case v == 0:
			st = Style{}
		case v == 4:
			st.Underline = UnderlineSingle
		case v <= 9:
			st.Attrs |= sgrAttrs[v]
		case v == 21:
			return false
		case v == 22:
			st.Attrs &^= AttrBold | AttrFaint
		case v == 23:
			st.Attrs &^= AttrItalic
		case v == 24:
			st.Underline = UnderlineNone
		case v == 25:
			st.Attrs &^= AttrBlink | AttrRapidBlink
		case v == 27:
			st.Attrs &^= AttrReverse
		case v == 28:
			st.Attrs &^= AttrConceal
		case v == 29:
			st.Attrs &^= AttrStrikethrough
		case v >= 30 && v <= 37:
			st.Fg = IndexedColor(uint8(v - 30))
		case v == 39:
			st.Fg = DefaultColor
		case v >= 40 && v <= 47:
			st.Bg = IndexedColor(uint8(v - 40))
		case v == 49:
			st.Bg = DefaultColor
		case v == 59:
			st.UnderlineColor = DefaultColor
		case v >= 90 && v <= 97:
			st.Fg = IndexedColor(uint8(v - 90 + 8))
		case v >= 100 && v <= 107:
			st.Bg = IndexedColor(uint8(v - 100 + 8))
		case v == 38 || v == 48 || v == 58:
			c, ok := f.color()
			if !ok {
				return false
			}
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

// sgrFields reads ';'-separated numbers from p.
type sgrFields struct {
	p []byte
	i int
}

func (f *sgrFields) done() bool { return f.i >= len(f.p) }

// next reads a number of one to three digits and the ';' after it.
func (f *sgrFields) next() (int, bool) {
	v, j := 0, f.i
	for j < len(f.p) && f.p[j] >= '0' && f.p[j] <= '9' {
		v = v*10 + int(f.p[j]-'0')
		j++
	}
	if j == f.i || j-f.i > 3 || j < len(f.p) && f.p[j] != ';' {
		return 0, false
	}
	f.i = j + 1
	return v, true
}

// color reads what follows 38, 48 or 58: 5;N or 2;R;G;B, each value cut
// to eight bits as readStyleColor cuts it.
func (f *sgrFields) color() (Color, bool) {
	kind, ok := f.next()
	if !ok {
		return 0, false
	}
	switch kind {
	case 5:
		n, ok := f.next()
		return IndexedColor(uint8(n)), ok
	case 2:
		r, ok1 := f.next()
		g, ok2 := f.next()
		b, ok3 := f.next()
		return RGBColor(uint8(r), uint8(g), uint8(b)), ok1 && ok2 && ok3
	}
	return 0, false
}
