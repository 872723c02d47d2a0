//go:build unix

// Package ptyio reads a PTY master for the session's reader goroutine.
package ptyio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Drain fills buf with what the master has now: it reads until the PTY has
// nothing more (EAGAIN) or buf is full, and waits in the runtime poller
// only while it has read nothing. A Linux PTY gives at most 4 KiB a read;
// handing each of those to the parser on its own costs a wake of the
// parser goroutine per 4 KiB, where one hand-off of everything the child
// has written since carries the same bytes.
func Drain(f *os.File, buf []byte) (n int, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rerr := rc.Read(func(fd uintptr) bool {
		for n < len(buf) {
			k, e := unix.Read(int(fd), buf[n:])
			switch {
			case e == unix.EINTR:
				continue
			case e == unix.EAGAIN:
				return n > 0 // Nothing read yet: wait for the poller.
			case e != nil:
				err = &os.PathError{Op: "read", Path: f.Name(), Err: e}
				return true
			case k == 0:
				err = io.EOF
				return true
			}
			n += k
		}
		return true
	})
	if err == nil {
		err = rerr // Closed while waiting.
	}
	return n, err
}
