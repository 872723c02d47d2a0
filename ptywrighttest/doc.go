// Package ptywrighttest is for Go test suites that drive terminal programs
// with ptywright: start a program for the length of a test, wait for what
// it shows with failures that print the screen and the output, and compare
// screens with golden files.
//
//	func TestGreeting(t *testing.T) {
//		s := ptywrighttest.Start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c",
//			`printf 'name? '; read name; echo "Hello, $name, it is $(date +%T)"; sleep 5`}})
//		ptywrighttest.ExpectText(t, s, "name?")
//		ptywrighttest.Send(t, s, ptywright.Text("Ada\r"))
//		ptywrighttest.ExpectText(t, s, "Hello, Ada")
//		ptywrighttest.RequireScreen(t, s, "greeting",
//			ptywrighttest.MaskRegex(`\d\d:\d\d:\d\d`, '#'))
//	}
//
// This package's own TestGreeting is that test. After Send, Expect does
// not match on the echo of what was typed ("Ada" on the "name? " line), only
// on the program's answer; IncludeEcho turns that off.
//
// It is a package of its own, not part of ptywright, so that programs using
// ptywright outside tests (the CLI, the JSON-RPC server, a user's tool) do
// not link package testing or get its flags, and so that importing
// ptywright never registers a command-line flag. Importing ptywrighttest
// does register one: -update, which rewrites the golden files instead of
// comparing with them, as golden-file helpers conventionally do (a package
// imported earlier that defines -update keeps its own, and ptywrighttest
// follows it; a test package must not define another). Setting
// PTYWRIGHT_UPDATE=1 in the environment does the same, which also works
// for `go test ./...` across packages that do not all import this one.
//
// Every helper takes a testing.TB, calls tb.Helper, and fails the test
// from the calling goroutine only: call them from the test's goroutine, as
// with tb.Fatal. Failure messages are redacted like every ptywright read.
package ptywrighttest
