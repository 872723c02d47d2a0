package ptywrighttest_test

import (
	"testing"

	"ptywright"
	"ptywright/ptywrighttest"
)

// TestGreeting is the package documentation's example, as written there.
func TestGreeting(t *testing.T) {
	s := ptywrighttest.Start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c",
		`printf 'name? '; read name; echo "Hello, $name, it is $(date +%T)"; sleep 5`}})
	ptywrighttest.ExpectText(t, s, "name?")
	ptywrighttest.Send(t, s, ptywright.Text("Ada\r"))
	ptywrighttest.ExpectText(t, s, "Hello, Ada")
	ptywrighttest.RequireScreen(t, s, "greeting",
		ptywrighttest.MaskRegex(`\d\d:\d\d:\d\d`, '#'))
}
