//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package main

import (
	"context"
	"fmt"
	"io"

	"ptywright"
)

// attachTerminal needs termios and a Unix socket; neither is implemented
// here yet.
func attachTerminal(ctx context.Context, c *client, t attachTarget, stdin io.Reader) error {
	return &exitError{code: exitUsage, err: fmt.Errorf("attach: %w", ptywright.ErrUnsupported)}
}
