package ptywright_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ptywright"
)

// A wait that gives up says what it waited for and how the screen ended.
// A context without a deadline would get DefaultWaitTimeout.
func ExampleWaitError() {
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", "echo compiling; echo 'error: no space left'; sleep 5"},
		Size:    ptywright.Size{Rows: 5, Cols: 40},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Wait(ctx, ptywright.ContainsText("no space")); err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = s.Wait(ctx, ptywright.All(ptywright.ContainsText("no space"), ptywright.ContainsText("done")))
	var we *ptywright.WaitError
	if errors.As(err, &we) && errors.Is(err, ptywright.ErrTimeout) {
		// The first line has the elapsed time; the rest is the screen.
		_, screen, _ := strings.Cut(err.Error(), "\n")
		fmt.Println(we.Matcher.Type)
		fmt.Println(strings.ReplaceAll(screen, "\t", "  "))
	}
	// Output:
	// all
	// screen (5x40, cursor row 2 col 0):
	//     0|compiling
	//     1|error: no space left
	//      (rows 2-4 blank)
}
