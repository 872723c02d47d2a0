package ptywright

import (
	"fmt"
	"time"

	"ptywright/internal/ptyio"
)

// EmitCore is emitCore, for the tests of the core events' payload.
var EmitCore = emitCore

// ReaderEnd says why s's reader stopped and what the PTY master still
// held afterwards: the evidence a test shows when output it waited for is
// missing (did the kernel still have it, or did the reader stop early?).
func ReaderEnd(s *Session) string {
	select {
	case <-s.readerDone:
	default:
		return "the reader is still running"
	}
	if err := s.proc.master.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		return fmt.Sprintf("reader ended: %v (master: %v)", s.pump.Err(), err)
	}
	exited := make(chan struct{})
	close(exited)
	buf := make([]byte, 64<<10)
	n, err := ptyio.Drain(s.proc.master, buf, exited)
	return fmt.Sprintf("reader ended: %v; a read after it: %d bytes %q, %v", s.pump.Err(), n, buf[:n], err)
}

// SetDefaultWaitTimeout shortens the deadline Session.Wait gives a context
// without one, until the returned func restores it. Not for parallel tests.
func SetDefaultWaitTimeout(d time.Duration) (restore func()) {
	old := defaultWaitTimeout.Swap(int64(d))
	return func() { defaultWaitTimeout.Store(old) }
}
