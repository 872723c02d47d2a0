//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package main

import (
	"context"
	"fmt"
	"io"

	"ptywright"
)

// runPassthrough needs a PTY and termios; neither is implemented here yet.
func runPassthrough(ctx context.Context, cfg runConfig, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return exitFailure, fmt.Errorf("run: %w", ptywright.ErrUnsupported)
}
