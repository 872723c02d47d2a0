//go:build unix

package ptyio

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// NonblockingDup returns a non-blocking, close-on-exec duplicate of the
// PTY master f. A blocking master cannot be interrupted by Close while a
// grandchild still holds the tty; a non-blocking one goes through the
// runtime poller, where Close and deadlines work.
func NonblockingDup(f *os.File) (*os.File, error) {
	var dupErr error
	fd := -1
	conn, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := conn.Control(func(src uintptr) {
		fd, dupErr = unix.FcntlInt(src, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("dup pty master: %w", dupErr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd) // Best effort: already failing.
		return nil, fmt.Errorf("set pty master non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), "ptmx"), nil
}
