//go:build unix

package rpc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// fdHangup polls sc's descriptor, without blocking, for a hangup or an
// error: POLLHUP once a socket's peer closed (both directions shut down;
// a peer that only shut down its writing side is not reported), POLLERR
// for a pipe with no reader left or a reset socket.
func fdHangup(sc syscall.Conn) func() bool {
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() bool {
		gone := false
		err := rc.Control(func(fd uintptr) {
			// POLLOUT: on Darwin poll registers a write filter for it,
			// whose end-of-file is the peer's close; the read filter's
			// is only the end of what it sends.
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			n, err := unix.Poll(fds, 0)
			gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
		})
		return err == nil && gone
	}
}
