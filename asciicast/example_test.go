package asciicast_test

import (
	"errors"
	"fmt"
	"strings"

	"ptywright/asciicast"
)

// Read names the line and the field that make a file invalid.
func ExampleRead() {
	_, err := asciicast.Read(strings.NewReader(`{"version": 2, "width": 80, "height": 24}
[0.5, "o", "first"]
[0.2, "o", "earlier?"]
`))
	var re *asciicast.Error
	fmt.Println(errors.As(err, &re), re.Line)
	fmt.Println(err)
	// Output:
	// true 3
	// recording line 3: event[0]: time 0.2 is before the previous event's 0.5
}
