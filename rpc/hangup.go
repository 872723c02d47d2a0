package rpc

import (
	"errors"
	"io"
	"net"
	"syscall"
)

// A connection ends when its peer is gone. Reading the end of the stream
// (EOF) says only that the peer sends nothing more: a client that shut
// down its writing side (a socket's shutdown(SHUT_WR), or stdin closed
// under `printf '...' | ptywright serve --stdio`) may still read the
// answers of the requests it sent, and gets them. A peer that closed the
// stream entirely (or died) reads nothing, and its requests are cancelled
// at once, releasing their goroutines and the stream.
//
// hangupProbe tells the two apart where the transport can:
//
//   - a net.Conn that cannot be half-closed (no CloseWrite, as net.Pipe):
//     its EOF is the peer's close, so the peer is gone;
//   - a socket (net.UnixConn, net.TCPConn), and on stdio the stream the
//     answers are written to (an *os.File: a pipe, a socket, a terminal):
//     poll(2) says POLLHUP or POLLERR once the peer closed its end (for a
//     pipe: once no reader is left). Unix only; a TCP peer that closed
//     looks half-closed until a write fails.
//
// Anything else (an io.ReadWriteCloser that is no file and no net.Conn)
// cannot be probed: the requests run to their end, as after a half-close.
// A write that fails cancels them on any transport (conn.writeLoop).

// hangupProbe returns a function that reports whether rwc's peer is gone
// entirely, or nil when that cannot be told.
func hangupProbe(rwc io.ReadWriteCloser) func() bool {
	switch c := rwc.(type) {
	case stdio:
		if sc, ok := c.Writer.(syscall.Conn); ok {
			return fdHangup(sc)
		}
	case net.Conn:
		if _, ok := c.(interface{ CloseWrite() error }); !ok {
			return func() bool { return true }
		}
		if sc, ok := c.(syscall.Conn); ok {
			return fdHangup(sc)
		}
	case syscall.Conn: // an *os.File both ways: a socket, a terminal
		return fdHangup(c)
	}
	return nil
}

// goneWriting reports whether err, from a write, says the peer is gone: a
// broken pipe, a reset, or a net.Pipe closed at the other end.
func goneWriting(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrClosedPipe)
}
