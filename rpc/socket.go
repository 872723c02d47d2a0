package rpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrSocketInUse is returned by ListenUnix when a server is already
// listening on the path.
var ErrSocketInUse = errors.New("ptywright: a server is already listening on the socket")

// ErrNotASocket is returned by ListenUnix when the path exists and is not a
// socket: ptywright never replaces a file it did not create.
var ErrNotASocket = errors.New("ptywright: path exists and is not a socket")

// homeEnv names the environment variable that moves ptywright's per-user
// directory (default ~/.ptywright).
const homeEnv = "PTYWRIGHT_HOME"

// DefaultSocketPath is $PTYWRIGHT_HOME/socket, or ~/.ptywright/socket when
// PTYWRIGHT_HOME is unset.
func DefaultSocketPath() (string, error) {
	if dir := os.Getenv(homeEnv); dir != "" {
		return filepath.Join(dir, "socket"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("rpc: default socket path: %w (set %s)", err, homeEnv)
	}
	return filepath.Join(home, ".ptywright", "socket"), nil
}

// ListenUnix listens on the Unix socket at path (see the package-level
// ListenUnix for the safety rules) and serves it until ctx is cancelled or
// the server closes. The socket file is removed when it returns.
func (s *Server) ListenUnix(ctx context.Context, path string) error {
	l, err := ListenUnix(path)
	if err != nil {
		return err
	}
	return s.Serve(ctx, l)
}
