//go:build !unix

package rpc

import (
	"fmt"
	"net"

	"ptywright"
)

// ListenUnix is not implemented on this platform yet (Windows will use
// named pipes).
func ListenUnix(path string) (net.Listener, error) {
	return nil, fmt.Errorf("rpc: listen on %s: %w", path, ptywright.ErrUnsupported)
}
