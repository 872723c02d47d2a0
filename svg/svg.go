// Package svg draws a ptywright screen snapshot as an SVG picture of the
// terminal, for people: failure reports (ptywrighttest's golden files) and
// docs (ptywright snapshot --svg).
package svg

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"ptywright"
)

// Options tune Render. The zero value gives 14px monospace, light
// grey on near-black, the xterm palette and a visible cursor.
type Options struct {
	// FontSize is in pixels; 0 means 14. A cell is 0.6 by 1.2 font sizes.
	FontSize float64
	// FontFamily is a CSS font-family list; "" means a monospace stack.
	FontFamily string
	// Foreground and Background are the default colours as #rrggbb; ""
	// means #d4d4d4 and #1e1e1e.
	Foreground, Background string
	// HideCursor leaves the cursor out even when the snapshot shows it.
	HideCursor bool
	// Title, when set, becomes the picture's <title> (shown as a tooltip
	// and read by screen readers).
	Title string
}

func (o Options) withDefaults() Options {
	if o.FontSize <= 0 {
		o.FontSize = 14
	}
	if o.FontFamily == "" {
		o.FontFamily = `ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace`
	}
	if o.Foreground == "" {
		o.Foreground = "#d4d4d4"
	}
	if o.Background == "" {
		o.Background = "#1e1e1e"
	}
	return o
}

// Render draws a snapshot as an SVG picture of the terminal: a monospace
// grid with the cells' colours (the 256-colour palette and true colour),
// bold, italic, underline, dim and inverse, wide characters over two
// columns, and the cursor when visible. It is for people: failure reports
// and docs. Each row is one <text> element whose <tspan> runs, joined,
// are the row's plain text, so the picture's text can be searched and
// checked.
//
// The snapshot must carry cells (ptywright.SnapshotOptions.Cells); redaction already
// applied to it stays applied.
func Render(w io.Writer, snap ptywright.ScreenSnapshot, opts Options) error {
	if len(snap.Cells) == 0 {
		return &ptywright.FieldError{Field: "cells", Reason: "the snapshot has no cells; take it with cells to render it", Err: ptywright.ErrInvalidParams}
	}
	if err := snap.Size.Validate(); err != nil {
		return err
	}
	o := opts.withDefaults()
	rows, cols := snap.Size.Rows, snap.Size.Cols
	grid := make([][]ptywright.Cell, rows)
	for r := range grid {
		grid[r] = make([]ptywright.Cell, cols)
		for c := range grid[r] {
			grid[r][c] = ptywright.Cell{Row: r, Col: c, Text: " ", Style: ptywright.CellStyle{Foreground: "default", Background: "default"}}
		}
	}
	for _, c := range snap.Cells {
		if c.Row >= 0 && c.Row < rows && c.Col >= 0 && c.Col < cols {
			grid[c.Row][c.Col] = c
		}
	}

	cw, lh := o.FontSize*0.6, o.FontSize*1.2
	pad := o.FontSize / 2
	width, height := float64(cols)*cw+2*pad, float64(rows)*lh+2*pad
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="%s" font-size="%s">`+"\n",
		svgNum(width), svgNum(height), svgNum(width), svgNum(height), svgEscape(o.FontFamily), svgNum(o.FontSize))
	if opts.Title != "" {
		p("<title>%s</title>\n", svgEscape(opts.Title))
	}
	p(`<rect width="100%%" height="100%%" fill="%s"/>`+"\n", o.Background)

	x := func(col int) string { return svgNum(pad + float64(col)*cw) }
	y := func(row int) string { return svgNum(pad + float64(row)*lh) }
	// Backgrounds: runs of equal, non-default colour.
	for r := range rows {
		for c := 0; c < cols; {
			_, bg := svgColours(grid[r][c].Style, o)
			end := c + 1
			for end < cols {
				if _, b := svgColours(grid[r][end].Style, o); b != bg {
					break
				}
				end++
			}
			if bg != o.Background {
				p(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", x(c), y(r), svgNum(float64(end-c)*cw), svgNum(lh), bg)
			}
			c = end
		}
	}
	if snap.Cursor.Visible && !opts.HideCursor && snap.Cursor.Row < rows && snap.Cursor.Col < cols {
		n := 1
		if grid[snap.Cursor.Row][snap.Cursor.Col].Wide {
			n = 2
		}
		p(`<rect class="cursor" x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.6"/>`+"\n",
			x(snap.Cursor.Col), y(snap.Cursor.Row), svgNum(float64(n)*cw), svgNum(lh), o.Foreground)
	}
	// Text: one element per row, one tspan per run of equal style, up to
	// the last non-blank cell.
	for r := range rows {
		last := -1
		for c := range cols {
			if cell := grid[r][c]; !cell.WideContinuation && cell.Text != " " && cell.Text != "" {
				last = c
			}
		}
		if last < 0 {
			continue
		}
		if grid[r][last].Wide && last+1 < cols {
			last++
		}
		p(`<text y="%s" xml:space="preserve">`, svgNum(pad+float64(r)*lh+o.FontSize))
		for c := 0; c <= last; {
			st := grid[r][c].Style
			var b strings.Builder
			end := c
			for end <= last && grid[r][end].Style == st {
				if !grid[r][end].WideContinuation {
					b.WriteString(grid[r][end].Text)
				}
				end++
			}
			fg, _ := svgColours(st, o)
			p(`<tspan x="%s" textLength="%s" lengthAdjust="spacingAndGlyphs" fill="%s"%s>%s</tspan>`,
				x(c), svgNum(float64(end-c)*cw), fg, svgStyleAttrs(st), svgEscape(b.String()))
			c = end
		}
		p("</text>\n")
	}
	p("</svg>\n")
	return bw.Flush()
}

// svgColours resolves a style to #rrggbb foreground and background,
// inverse applied.
func svgColours(st ptywright.CellStyle, o Options) (fg, bg string) {
	fg, bg = colourHex(st.Foreground, o.Foreground), colourHex(st.Background, o.Background)
	if st.Inverse {
		fg, bg = bg, fg
	}
	return fg, bg
}

func svgStyleAttrs(st ptywright.CellStyle) string {
	var b strings.Builder
	if st.Bold {
		b.WriteString(` font-weight="bold"`)
	}
	if st.Italic {
		b.WriteString(` font-style="italic"`)
	}
	if st.Underline {
		b.WriteString(` text-decoration="underline"`)
	}
	if st.Dim {
		b.WriteString(` fill-opacity="0.5"`)
	}
	return b.String()
}

// colourHex turns a wire colour ("default", "idx:N", "rgb:R:G:B") into
// #rrggbb; anything else is the default.
func colourHex(c, def string) string {
	switch {
	case strings.HasPrefix(c, "idx:"):
		n, err := strconv.Atoi(c[4:])
		if err == nil && n >= 0 && n < 256 {
			return paletteHex(n)
		}
	case strings.HasPrefix(c, "rgb:"):
		parts := strings.Split(c[4:], ":")
		if len(parts) == 3 {
			var v [3]int
			ok := true
			for i, s := range parts {
				n, err := strconv.Atoi(s)
				ok = ok && err == nil && n >= 0 && n < 256
				v[i] = n
			}
			if ok {
				return fmt.Sprintf("#%02x%02x%02x", v[0], v[1], v[2])
			}
		}
	}
	return def
}

// xtermBasic is xterm's default palette for colours 0-15.
var xtermBasic = [16]string{
	"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
}

// paletteHex returns xterm's colour n of 256: 16 basic colours, a 6x6x6
// cube, then 24 greys.
func paletteHex(n int) string {
	switch {
	case n < 16:
		return xtermBasic[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// svgNum formats a coordinate with at most two decimals.
func svgNum(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }

// svgEscape escapes text for XML character data and attribute values;
// characters XML cannot hold become U+FFFD.
func svgEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // Never fails on a strings.Builder.
	return b.String()
}
