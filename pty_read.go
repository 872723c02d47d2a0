package ptywright

import (
	"sync"
	"sync/atomic"
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
	// directFeedMax: the reader feeds a read shorter than this itself when
	// nothing waits for the parser (see feedState).
	directFeedMax = 4 << 10
)

// feedState lets the reader feed a short read itself instead of handing it
// to the parser. Output that comes a line or a redraw at a time (a prompt,
// a reply someone waits for) then reaches the screen and the waiters
// without waking the parser goroutine, which costs a scheduler hand-off per
// read; the parser keeps what it is for, parsing a flood while the reader
// reads on. Feeding stays serial and in order: mu is held by whichever
// goroutine feeds, and the reader feeds only when queued (chunks it sent
// the parser and the parser has not fed; only the reader adds to it) is
// zero, so nothing it read earlier is still on its way.
type feedState struct {
	mu     sync.Mutex
	queued atomic.Int32
}

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
		switch {
		case n > 0 && n < directFeedMax && s.feedDirect(buf[:n]):
			s.free <- buf
		case n > 0:
			s.feeding.queued.Add(1)
			s.chunks <- buf[:n]
		default:
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
		s.feeding.mu.Lock()
		s.feed(batch)
		s.feeding.queued.Add(-int32(len(batch)))
		s.feeding.mu.Unlock()
		for _, b := range batch {
			s.free <- b
		}
	}
}

// feedDirect feeds p on the reader's goroutine when the parser is neither
// feeding nor has anything queued, and reports whether it did.
func (s *Session) feedDirect(p []byte) bool {
	if !s.feeding.mu.TryLock() {
		return false
	}
	defer s.feeding.mu.Unlock()
	if s.feeding.queued.Load() != 0 {
		return false
	}
	s.feed([][]byte{p})
	return true
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
