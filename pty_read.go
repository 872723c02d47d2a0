package ptywright

import (
	"time"

	"ptywright/internal/ptyio"
)

// The read path: one goroutine reads the PTY master and another parses what
// it read, so that the child's next write is being read while the last one
// is parsed, as a terminal would (a single goroutine leaves the PTY
// undrained while it parses, and the child blocks). The reader owns the
// master's reads, the parser everything the output feeds; the read buffers
// go round between them, so a parser that falls behind stops the reader
// (and so the child) once they are all full, never memory.
const (
	// readBufSize is one hand-off's buffer, filled by draining the master
	// (ptyio.Drain), so a flood reaches the parser in large chunks.
	readBufSize = 64 << 10
	// readBuffers is how many hand-offs may wait for the parser.
	readBuffers = 4
)

func (s *Session) initReader() {
	s.chunks = make(chan []byte, readBuffers)
	s.free = make(chan []byte, readBuffers)
	for range readBuffers {
		s.free <- make([]byte, readBufSize)
	}
}

// readLoop is the one goroutine that reads the PTY master. It ends at EIO
// (every holder of the tty is gone) or ErrClosed (Close), and closes chunks
// to end the parser.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.chunks)
	for {
		buf := <-s.free // All buffers queued: the parser is behind, wait for it.
		n, err := ptyio.Drain(s.proc.master, buf[:cap(buf)])
		if n > 0 {
			s.chunks <- buf[:n]
		} else {
			s.free <- buf
		}
		if err != nil {
			return
		}
	}
}

// parseLoop feeds what the reader read, everything queued at once, until
// the reader has stopped and its last chunk is parsed.
func (s *Session) parseLoop() {
	defer s.wg.Done()
	defer close(s.readerDone)
	batch := make([][]byte, 0, readBuffers)
	for p := range s.chunks {
		batch = append(batch[:0], p)
	more:
		for len(batch) < readBuffers {
			select {
			case q, ok := <-s.chunks:
				if !ok {
					break more
				}
				batch = append(batch, q)
			default:
				break more
			}
		}
		s.feed(batch)
		for _, b := range batch {
			s.free <- b
		}
	}
}

// feed passes chunks, in order, to the taps, the recording, the screen and
// the transcript, and wakes the watchers once for all of them.
func (s *Session) feed(chunks [][]byte) {
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
		s.rec.output(p) // Under the lock: in the order the screen sees, resizes included.
		_, _ = s.screen.Write(p)
		s.tr.Write(p)
	}
	s.notifyLocked()
	s.lastOutput = s.lastChange
	if s.vis.watchers > 0 {
		s.visibleChangedLocked()
	}
	s.mu.Unlock()
}

// notifyLocked wakes everyone waiting for a change. The channel is only
// replaced when someone took it (watch, Changed) since it was made: a flood
// nobody watches costs no channel per chunk.
func (s *Session) notifyLocked() {
	s.lastChange = time.Now()
	if s.watched {
		close(s.changed)
		s.changed = make(chan struct{})
		s.watched = false
	}
}
