package ptywright_test

import (
	"context"
	"fmt"
	"strings"

	"ptywright"
	"ptywright/asciicast"
)

// Replay plays a recording (here inline; usually a file written with
// Options.RecordPath) through a screen, without running anything.
func ExampleReplay() {
	const cast = `{"version": 2, "width": 40, "height": 4}
[0.10, "o", "$ "]
[0.50, "i", "echo hi\r"]
[0.51, "o", "echo hi\r\nhi\r\n$ "]
[0.90, "r", "60x5"]
`
	rec, err := asciicast.Read(strings.NewReader(cast))
	if err != nil {
		fmt.Println(err)
		return
	}
	screen, err := ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(screen.Size().Cols, "columns")
	fmt.Println(screen.PlainText())
	// Output:
	// 60 columns
	// $ echo hi
	// hi
	// $
}
