//go:build unix

package rpc

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ListenUnix creates a listening Unix socket at path, owner-only:
//
//   - the parent directory is created with mode 0700 if missing (an existing
//     directory is left as it is);
//   - the socket file is chmod 0600;
//   - a stale socket (connecting to it is refused: its server died) is
//     replaced;
//   - a live socket is refused with ErrSocketInUse, and any other existing
//     file with ErrNotASocket.
//
// Closing the listener removes the socket file.
func ListenUnix(path string) (net.Listener, error) {
	if path == "" {
		return nil, errors.New("rpc: listen: socket path is empty")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("rpc: listen on %s: create directory: %w", path, err)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("rpc: listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	// The directory we create is 0700, so the socket is never reachable by
	// others in the moment before this chmod.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close() // Best effort: already failing; removes the file.
		return nil, fmt.Errorf("rpc: listen on %s: chmod socket: %w", path, err)
	}
	return l, nil
}

// clearStale removes path if it is a socket nobody listens on, and refuses
// anything else that exists there.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("rpc: listen on %s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("rpc: listen on %s: %w (mode %s); remove it or choose another path", path, ErrNotASocket, fi.Mode())
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		_ = c.Close() // Best effort: only probing.
		return fmt.Errorf("rpc: listen on %s: %w", path, ErrSocketInUse)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("rpc: listen on %s: probing the existing socket: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rpc: listen on %s: removing the stale socket: %w", path, err)
	}
	return nil
}
