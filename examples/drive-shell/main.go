// Drive-shell embeds ptywright to drive a shell: it starts sh on a
// pseudo-terminal, types a command, waits for the output, prints the screen
// and closes the session.
//
//	go run ./examples/drive-shell
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"ptywright"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := driveShell(ctx, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func driveShell(ctx context.Context, w io.Writer) error {
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Env:     map[string]string{"PS1": "$ "},
		Size:    ptywright.Size{Rows: 10, Cols: 60},
	})
	if err != nil {
		return err
	}
	defer s.Close()

	// Wait for the prompt, so the command is not typed before the shell
	// is ready for it. Screen text has trailing spaces trimmed: "$", not "$ ".
	if _, err := s.Wait(ctx, ptywright.ContainsText("$")); err != nil {
		return fmt.Errorf("waiting for the prompt: %w", err)
	}
	if err := s.Send(ctx, ptywright.Text("echo \"$((6 * 7)) is the answer\"\r")); err != nil {
		return err
	}
	// The regex needs a digit, so the echoed command line does not match.
	res, err := s.Wait(ctx, ptywright.ScreenRegex(`(?m)^\d+ is the answer$`))
	if err != nil {
		return fmt.Errorf("waiting for the answer: %w", err)
	}
	fmt.Fprintf(w, "matched %q at sequence %d; the screen:\n%s\n", *res.Outcome.Capture, res.Sequence, res.Snapshot.PlainText)
	return s.Close()
}
