package ptywright_test

import (
	"context"
	"fmt"
	"time"

	"ptywright"
)

// Drive a shell: type a command, wait for its output, read the screen.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Env:     map[string]string{"PS1": "$ "},
		Size:    ptywright.Size{Rows: 10, Cols: 40},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	// Type only once the shell shows its prompt, as a person would.
	if _, err := s.Wait(ctx, ptywright.ContainsText("$")); err != nil {
		fmt.Println(err)
		return
	}
	w, err := s.Perform(ctx, ptywright.Text("sleep 0.1; echo answer: $((6 * 7))\r"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// What followed the input, and not its echo: the command line holds
	// "answer:" too.
	res, err := s.Wait(ctx, ptywright.ScreenRegex(`answer: (\d+)`), ptywright.AfterInput(w))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answer:", *res.Outcome.Capture)
	// Output: answer: 42
}

// Wait for a full-screen program to settle before reading it.
func ExampleSession_Wait() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `printf '\033[2J\033[3;5Hloading'; sleep 0.1; printf '\033[3;5Hready  '; sleep 5`},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	res, err := s.Wait(ctx, ptywright.All(
		ptywright.ContainsText("ready"),
		ptywright.ScreenStable(100*time.Millisecond),
	))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("row %d col %d: %s\n", *res.Outcome.Matched[0].Row, *res.Outcome.Matched[0].Col, res.Outcome.Matched[0].Text)
	// Output: row 2 col 4: ready
}

// A Screen parses terminal output without a process, e.g. for replay.
func ExampleScreen() {
	scr, err := ptywright.NewScreen(ptywright.Size{Rows: 5, Cols: 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer scr.Close()
	_, _ = scr.Write([]byte("hello\r\n\x1b[1mworld\x1b[0m"))
	snap := scr.Snapshot(true)
	fmt.Printf("%q bold=%v\n", snap.PlainText, snap.Cells[20].Style.Bold)
	// Output: "hello\nworld" bold=true
}

// Read what scrolled off the top of the screen, as a person scrolling up
// would, and watch a shrink keep the newest rows.
func ExampleScreen_Scrollback() {
	scr, err := ptywright.NewScreenWith(ptywright.ScreenOptions{
		Size:       ptywright.Size{Rows: 3, Cols: 20},
		Scrollback: 100,
	})
	if err != nil {
		panic(err)
	}
	defer scr.Close()
	_, _ = scr.Write([]byte("one\r\ntwo\r\nthree\r\nfour\r\n$ "))
	fmt.Printf("screen %q, scrollback %q\n", scr.PlainText(), scr.Scrollback())
	_ = scr.Resize(ptywright.Size{Rows: 2, Cols: 20})
	fmt.Printf("screen %q, scrollback %q\n", scr.PlainText(), scr.Scrollback())
	// Output:
	// screen "three\nfour\n$", scrollback ["one" "two"]
	// screen "four\n$", scrollback ["one" "two" "three"]
}
