//go:build unix

// Package ptyio reads a PTY master for the session's reader goroutine.
package ptyio

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// quietRead: a first read shorter than this ends Drain (see there). It is
// the Pump's directFeedMax, below which the reader feeds the read itself;
// a flood reads up to 4 KiB at a time and goes on draining.
const quietRead = directFeedMax

// Drain fills buf with what the master has now: it reads until the PTY has
// nothing more (EAGAIN) or buf is full, and waits in the runtime poller
// only while it has read nothing. A Linux PTY gives at most 4 KiB a read;
// handing each of those to the parser on its own costs a wake of the
// parser goroutine per 4 KiB, where one hand-off of everything the child
// has written since carries the same bytes.
//
// A first read shorter than quietRead ends it at once, without the read
// that would find nothing more: output that comes a line at a time reaches
// the parser a system call sooner.
//
// EIO, which a Linux master reads whenever no file has the slave open,
// ends it only once exited is closed: until the child has exited the
// slave may be opened again (/dev/tty, or the kernel between a program's
// closes and opens) and what is written to it then must still be read, so
// before that EIO is waited out like EAGAIN. Whoever closes exited also
// sets a read deadline on f to wake a Drain waiting so (see Pump.Run).
// After the exit, an EIO ends it only when the reads after it say the
// same (see eioConfirmations).
func Drain(f *os.File, buf []byte, exited <-chan struct{}) (n int, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rerr := rc.Read(func(fd uintptr) bool {
		eios := 0 // EIOs read after the exit, with nothing read since
		for n < len(buf) {
			k, e := unix.Read(int(fd), buf[n:])
			switch {
			case e == unix.EINTR:
				continue
			case e == unix.EAGAIN, e == unix.EIO && !closed(exited):
				return n > 0 // Nothing read yet: wait for the poller.
			case e == unix.EIO && eios < eioConfirmations:
				// Read again before believing it: a master has been seen
				// to read EIO at the child's exit with output still on its
				// way, which the read right after returned. The last
				// look comes a moment later, for the kernel's worker that
				// moves the output to the master.
				if eios++; eios == eioConfirmations {
					time.Sleep(eioPause)
				}
				continue
			case e != nil:
				err = &os.PathError{Op: "read", Path: f.Name(), Err: e}
				return true
			case k == 0:
				err = io.EOF
				return true
			}
			n += k
			eios = 0
			if n < quietRead {
				// One short read: a line, a prompt, a reply someone is
				// waiting for. The child most likely wrote nothing since,
				// and finding that out costs a read on the way to them;
				// anything it did write is read by the next call.
				return true
			}
		}
		return true
	})
	if err == nil {
		err = rerr // Closed while waiting.
	}
	return n, err
}

// After the exit, an EIO is read eioConfirmations more times, the last
// after eioPause, before it ends the output: a millisecond more before
// the exit is told, against output lost for good.
const (
	eioConfirmations = 2
	eioPause         = time.Millisecond
)

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
