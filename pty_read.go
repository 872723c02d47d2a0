package ptywright

import (
	"time"

	"ptywright/internal/ptyio"
)

// The read path is a ptyio.Pump: one goroutine reads the PTY master and
// feeds short reads itself; under a flood the pump starts a second one
// that parses while the reading goes on, and ends it before Run returns.
// feed is what either of them calls, one at a time, in order.
func (s *Session) initReader() { s.pump = ptyio.NewPump(s.feed) }

// readLoop is the one goroutine that reads the PTY master. It ends once
// the output has all been fed, and the pump has let its buffers go.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.readerDone)
	s.pump.Run(s.proc.master, s.childGone)
}

// feed passes chunks, in order, to the taps, the recording, the screen and
// the transcript, and wakes the watchers once for all of them. It reports
// whether anyone was watching.
func (s *Session) feed(chunks [][]byte) (woke bool) {
	for _, p := range chunks {
		if s.opts.Output != nil {
			_, _ = s.opts.Output.Write(p) // Best effort: the session goes on without its tap.
		}
		if s.raw != nil {
			if _, err := s.raw.Write(p); err != nil {
				s.closeRaw() // The sink failed (disk full?): stop writing to it.
			}
		}
	}
	s.mu.Lock()
	for _, p := range chunks {
		s.rec.output(p) // Queued under the lock: in the order the screen sees, resizes included.
		_, _ = s.screen.Write(p)
		s.tr.Write(p)
	}
	woken := s.swapChangedLocked()
	s.lastOutput = s.lastChange
	if s.vis.watchers > 0 {
		s.visibleChangedLocked()
	}
	s.mu.Unlock()
	if woken != nil {
		// After the unlock: waking a goroutine can cost a system call,
		// which the woken, reaching for the lock, would wait out.
		close(woken)
	}
	// The recording's redaction and file write, outside the lock every
	// wait and read takes.
	s.rec.flush()
	return woken != nil
}

// notifyLocked wakes everyone waiting for a change.
func (s *Session) notifyLocked() {
	if ch := s.swapChangedLocked(); ch != nil {
		close(ch)
	}
}

// swapChangedLocked dates the change and replaces the channel its
// watchers hold, which the caller closes. The channel is only replaced
// when someone took it (watch, Changed) since it was made: a flood nobody
// watches costs no channel per chunk.
func (s *Session) swapChangedLocked() (woken chan struct{}) {
	s.lastChange = time.Now()
	if !s.watched {
		return nil
	}
	woken, s.changed, s.watched = s.changed, make(chan struct{}), false
	return woken
}
