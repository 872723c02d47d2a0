package vtcore

import "strconv"

// Color is a cell colour packed in 32 bits: the default colour is zero, a
// palette index or a 24-bit RGB value is tagged in the top byte. Being a plain
// value (no interface, no pointer) keeps cells pointer-free, so the grid is
// never scanned by the garbage collector and copying a cell costs no write
// barrier.
type Color uint32

const (
	colorIndexed Color = 1 << 24
	colorRGB     Color = 2 << 24
	colorTagMask Color = 0xff << 24
)

// DefaultColor is the terminal's default foreground or background.
const DefaultColor Color = 0

// IndexedColor returns palette colour i (0-15 are the basic colours).
func IndexedColor(i uint8) Color { return colorIndexed | Color(i) }

// RGBColor returns a direct colour.
func RGBColor(r, g, b uint8) Color {
	return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the default colour.
func (c Color) IsDefault() bool { return c == DefaultColor }

// Index returns the palette index of an indexed colour.
func (c Color) Index() (i uint8, ok bool) {
	return uint8(c), c&colorTagMask == colorIndexed
}

// RGB returns the components of a direct colour.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c&colorTagMask == colorRGB
}

// String renders c as "default", "idx:N" or "rgb:R:G:B".
func (c Color) String() string {
	if i, ok := c.Index(); ok {
		return "idx:" + strconv.Itoa(int(i))
	}
	if r, g, b, ok := c.RGB(); ok {
		return "rgb:" + strconv.Itoa(int(r)) + ":" + strconv.Itoa(int(g)) + ":" + strconv.Itoa(int(b))
	}
	return "default"
}

// Attr is a set of text attributes. The bit order is ultraviolet's, so the
// differential tests compare the two emulators bit for bit.
type Attr uint8

// Text attributes.
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrBlink
	AttrRapidBlink
	AttrReverse
	AttrConceal
	AttrStrikethrough
)

// Underline is an underline style (SGR 4 and 4:n).
type Underline uint8

// Underline styles.
const (
	UnderlineNone Underline = iota
	UnderlineSingle
	UnderlineDouble
	UnderlineCurly
	UnderlineDotted
	UnderlineDashed
)

// Style is a cell's rendition: everything SGR sets.
type Style struct {
	Fg, Bg, UnderlineColor Color
	Attrs                  Attr
	Underline              Underline
}

// Cell is one grid cell. Its zero value is a blank: a space of width one
// with the default style, so clearing a row is a memclr.
//
// content holds the cell's text: 0 is a space (or nothing, for a cell of
// width 0), a positive value is the single rune of the cell, a negative
// value -(i+1) names entry i of the terminal's grapheme-cluster table.
// width holds the display width minus one: -1 for the continuation of a
// wide character (and for zero-width clusters), 0 for a narrow cell, 1 for a
// wide one.
type Cell struct {
	content int32
	width   int8
	Style   Style
}

// continuation is the cell that follows a wide character.
var continuation = Cell{width: -1}

// Width returns the cell's display width: 0 for a wide continuation, 1 or 2.
func (c Cell) Width() int { return int(c.width) + 1 }

// blank returns c emptied the way ultraviolet's Cell.Empty does: a space of
// width one that keeps the style.
func (c Cell) blank() Cell { return Cell{Style: c.Style} }
