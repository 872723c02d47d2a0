package ptywright_test

import (
	"context"
	"fmt"
	"time"

	"ptywright"
)

// Click on a word, as xterm would report it to a program that turned on
// mouse reporting (1000) in SGR form (1006).
func ExampleSession_Mouse() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `stty -icanon -echo min 18; printf '\033[?1000;1006h[ OK ]\n'; head -c 18 | cat -v; echo; sleep 5`},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if _, err := s.Wait(ctx, ptywright.ContainsText("OK")); err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Mouse(ctx, ptywright.Mouse{Kind: ptywright.MouseClick, Text: "OK"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("clicked row", res.Row, "col", res.Col)
	w, err := s.Wait(ctx, ptywright.ScreenRegex(`(?m)^\^\[.*m$`), ptywright.After(res.Sequence))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Snapshot.Lines()[1])
	// Output:
	// clicked row 0 col 2
	// ^[[<0;3;1M^[[<0;3;1m
}
