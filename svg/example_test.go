package svg_test

import (
	"fmt"
	"os"

	"ptywright"
	"ptywright/svg"
)

// Render draws a snapshot taken with cells.
func ExampleRender() {
	screen, err := ptywright.NewScreen(ptywright.Size{Rows: 2, Cols: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer screen.Close()
	_, _ = screen.Write([]byte("\x1b[1;32mok\x1b[0m done"))
	if err := svg.Render(os.Stdout, screen.Snapshot(true), svg.Options{HideCursor: true}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// <svg xmlns="http://www.w3.org/2000/svg" width="182" height="47.6" viewBox="0 0 182 47.6" font-family="ui-monospace, &#34;DejaVu Sans Mono&#34;, Menlo, Consolas, monospace" font-size="14">
	// <rect width="100%" height="100%" fill="#1e1e1e"/>
	// <text y="21" xml:space="preserve"><tspan x="7" textLength="16.8" lengthAdjust="spacingAndGlyphs" fill="#00cd00" font-weight="bold">ok</tspan><tspan x="23.8" textLength="42" lengthAdjust="spacingAndGlyphs" fill="#d4d4d4"> done</tspan></text>
	// </svg>
}
