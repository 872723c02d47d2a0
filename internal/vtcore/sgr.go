package vtcore

import (
	"image/color"

	"github.com/charmbracelet/x/ansi"
)

// readStyle applies SGR parameters to pen, as ultraviolet's ReadStyle does
// but for SGR 21; it reports whether it met one.
func readStyle(params ansi.Params, pen *Style) (sgr21 bool) {
	if len(params) == 0 {
		*pen = Style{}
		return false
	}
	for i := 0; i < len(params); i++ {
		param, hasMore, _ := params.Param(i, 0)
		switch param {
		case 0:
			*pen = Style{}
		case 1:
			pen.Attrs |= AttrBold
		case 2:
			pen.Attrs |= AttrFaint
		case 3:
			pen.Attrs |= AttrItalic
		case 4:
			next, _, ok := params.Param(i+1, 0)
			if hasMore && ok {
				// Only a sub-parameter (4:n) selects the style.
				if next >= 0 && next <= 5 {
					i++
					pen.Underline = Underline(next)
				}
			} else {
				pen.Underline = UnderlineSingle
			}
		case 5:
			pen.Attrs |= AttrBlink
		case 6:
			pen.Attrs |= AttrRapidBlink
		case 7:
			pen.Attrs |= AttrReverse
		case 8:
			pen.Attrs |= AttrConceal
		case 9:
			pen.Attrs |= AttrStrikethrough
		case 21:
			// Doubly underlined (ECMA-48, xterm, tmux); x/vt ignores it.
			pen.Underline = UnderlineDouble
			sgr21 = true
		case 22:
			pen.Attrs &^= AttrBold | AttrFaint
		case 23:
			pen.Attrs &^= AttrItalic
		case 24:
			pen.Underline = UnderlineNone
		case 25:
			pen.Attrs &^= AttrBlink | AttrRapidBlink
		case 27:
			pen.Attrs &^= AttrReverse
		case 28:
			pen.Attrs &^= AttrConceal
		case 29:
			pen.Attrs &^= AttrStrikethrough
		case 30, 31, 32, 33, 34, 35, 36, 37:
			pen.Fg = IndexedColor(uint8(param - 30))
		case 38:
			if n, c := readStyleColor(params[i:]); n > 0 {
				pen.Fg = c
				i += n - 1
			}
		case 39:
			pen.Fg = DefaultColor
		case 40, 41, 42, 43, 44, 45, 46, 47:
			pen.Bg = IndexedColor(uint8(param - 40))
		case 48:
			if n, c := readStyleColor(params[i:]); n > 0 {
				pen.Bg = c
				i += n - 1
			}
		case 49:
			pen.Bg = DefaultColor
		case 58:
			if n, c := readStyleColor(params[i:]); n > 0 {
				pen.UnderlineColor = c
				i += n - 1
			}
		case 59:
			pen.UnderlineColor = DefaultColor
		case 90, 91, 92, 93, 94, 95, 96, 97:
			pen.Fg = IndexedColor(uint8(param - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			pen.Bg = IndexedColor(uint8(param - 100 + 8))
		}
	}
	return sgr21
}

// readStyleColor reads the colour of a 38, 48 or 58 parameter as x/ansi's
// ReadStyleColor does, with its semicolon and colon forms, and returns how
// many parameters it used (0 when none form a colour). An implementation
// defined (0) or transparent (1) colour is the default colour, as the
// "default" x/vt's transparent cells render as.
func readStyleColor(params ansi.Params) (int, Color) {
	if len(params) < 2 {
		return 0, DefaultColor
	}
	s, p := params[0], params[1]
	n := 2
	components := func() (p1, p2, p3, p4 int) {
		more := func(i int) bool { return params[i].HasMore() }
		switch {
		case s.HasMore() && p.HasMore() && len(params) > 8 && more(2) && more(3) && more(4) && more(5) && more(6) && more(7):
			n += 7
			return params[3].Param(0), params[4].Param(0), params[5].Param(0), params[6].Param(0)
		case s.HasMore() && p.HasMore() && len(params) > 7 && more(2) && more(3) && more(4) && more(5) && more(6):
			n += 6
			return params[3].Param(0), params[4].Param(0), params[5].Param(0), params[6].Param(0)
		case s.HasMore() && p.HasMore() && len(params) > 6 && more(2) && more(3) && more(4) && more(5):
			n += 5
			return params[3].Param(0), params[4].Param(0), params[5].Param(0), params[6].Param(0)
		case s.HasMore() && p.HasMore() && len(params) > 5 && more(2) && more(3) && more(4) && !more(5):
			n += 4
			return params[3].Param(0), params[4].Param(0), params[5].Param(0), -1
		case s.HasMore() && p.HasMore() && p.Param(0) == 2 && more(2) && more(3) && !more(4),
			!s.HasMore() && !p.HasMore() && p.Param(0) == 2 && !more(2) && !more(3) && !more(4):
			n += 3
			return params[2].Param(0), params[3].Param(0), params[4].Param(0), -1
		}
		return -1, -1, -1, -1
	}
	switch p.Param(0) {
	case 0, 1:
		return 2, DefaultColor
	case 2:
		if len(params) < 5 {
			return 0, DefaultColor
		}
		r, g, b, _ := components()
		if r == -1 || g == -1 || b == -1 {
			return 0, DefaultColor
		}
		return n, RGBColor(uint8(r), uint8(g), uint8(b))
	case 3:
		if len(params) < 5 {
			return 0, DefaultColor
		}
		c, m, y, _ := components()
		if c == -1 || m == -1 || y == -1 {
			return 0, DefaultColor
		}
		return n, fromRGBA(color.CMYK{C: uint8(c), M: uint8(m), Y: uint8(y)}.RGBA())
	case 4:
		if len(params) < 6 {
			return 0, DefaultColor
		}
		c, m, y, k := components()
		if c == -1 || m == -1 || y == -1 || k == -1 {
			return 0, DefaultColor
		}
		return n, fromRGBA(color.CMYK{C: uint8(c), M: uint8(m), Y: uint8(y), K: uint8(k)}.RGBA())
	case 5:
		if len(params) < 3 {
			return 0, DefaultColor
		}
		s2 := params[2].HasMore()
		if !(s.HasMore() && p.HasMore() && !s2) && !(!s.HasMore() && !p.HasMore() && !s2) {
			return 0, DefaultColor
		}
		return 3, IndexedColor(uint8(params[2].Param(0)))
	case 6:
		if len(params) < 6 {
			return 0, DefaultColor
		}
		r, g, b, a := components()
		if r == -1 || g == -1 || b == -1 || a == -1 {
			return 0, DefaultColor
		}
		return n, fromRGBA(color.RGBA{R: uint8(r), G: uint8(g), B: uint8(b), A: uint8(a)}.RGBA())
	}
	return 0, DefaultColor
}

// fromRGBA reduces a colour to 8-bit RGB the way the root package renders
// colours: a fully transparent one is the default.
func fromRGBA(r, g, b, a uint32) Color {
	if a == 0 {
		return DefaultColor
	}
	return RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}
