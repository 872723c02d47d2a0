package ptyio

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A Pump carries a PTY master's output to what parses it, on two
// goroutines, so that the child's next write is being read while the last
// one is parsed, as a terminal would (a single goroutine leaves the PTY
// undrained while it parses, and the child blocks). Read owns the master's
// reads, Parse everything the output feeds; the read buffers go round
// between them, so a parser that falls behind stops the reader (and so
// the child) once they are all full, never memory.
//
// Read feeds a short read itself when Parse has nothing queued and is not
// feeding: output that comes a line or a redraw at a time (a prompt, a
// reply someone waits for) then reaches the screen and its waiters without
// waking the parser goroutine, a scheduler hand-off per read; Parse keeps
// what it is for, parsing a flood while Read reads on. Feeding stays
// serial and in order: feedMu is held by whichever goroutine feeds, and
// Read feeds only when queued (chunks it sent Parse that Parse has not fed;
// only Read adds to it) is zero, so nothing it read earlier is on its way.
//
// A feed reports whether it woke a goroutine (a wait the output may
// answer). After such a feed of its own, Read yields its P before reading
// on: the woken goroutine was put first in line on Read's P, and would
// otherwise start only once Read's next read had found nothing and parked
// it, a system call later; the idle P the wake-up started takes Read.
type Pump struct {
	feed   func([][]byte) (woke bool)
	chunks chan []byte // read, on their way to Parse
	free   chan []byte // buffers Parse is done with
	feedMu sync.Mutex
	queued atomic.Int32
	err    error // why Read stopped; set before it ends Parse
}

const (
	// bufSize is one hand-off's buffer, filled by draining the master
	// (Drain), so a flood reaches the parser in large chunks.
	bufSize = 64 << 10
	// buffers is how many hand-offs may wait for the parser.
	buffers = 4
	// directFeedMax: Read feeds a read shorter than this itself when it
	// can: a line or a few, not the up to 4 KiB reads of a flood, whose
	// reading should go on while they are parsed.
	directFeedMax = 512
)

// NewPump returns a pump that passes what it reads to feed, in order, one
// call at a time; feed reports whether it woke a goroutine.
func NewPump(feed func([][]byte) (woke bool)) *Pump {
	p := &Pump{feed: feed, chunks: make(chan []byte, buffers), free: make(chan []byte, buffers)}
	for range buffers {
		p.free <- make([]byte, bufSize)
	}
	return p
}

// Read reads f until EIO once exited is closed (every holder of the tty
// is gone, and the child cannot open it again: see Drain) or ErrClosed
// (Close), then ends Parse once it has fed the rest. Run it on one
// goroutine, and Parse on another. Whoever closes exited sets a read
// deadline on f after it, which wakes a read waiting out an earlier EIO;
// Read clears it and reads on.
func (p *Pump) Read(f *os.File, exited <-chan struct{}) {
	var err error
	defer func() {
		p.err = err
		close(p.chunks)
	}()
	for {
		buf := <-p.free // All buffers queued: the parser is behind, wait for it.
		var n int
		n, err = Drain(f, buf[:cap(buf)], exited)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The exit's wake-up: read on, now ending at EIO.
			_ = f.SetReadDeadline(time.Time{}) // A closed f ends the next Drain.
			err = nil
		}
		switch {
		case n > 0 && n < directFeedMax:
			fed, woke := p.feedDirect(buf[:n])
			if !fed {
				p.queue(buf[:n])
				break
			}
			p.free <- buf
			if woke {
				runtime.Gosched()
			}
		case n > 0:
			p.queue(buf[:n])
		default:
			p.free <- buf
		}
		if err != nil {
			return
		}
	}
}

// Err returns the error that stopped Read: an EIO or ErrClosed at the
// end of the output, anything else when reading failed. Call it only
// once Parse has returned.
func (p *Pump) Err() error { return p.err }

// queue hands b to Parse.
func (p *Pump) queue(b []byte) {
	p.queued.Add(1)
	p.chunks <- b
}

// feedDirect feeds b on Read's goroutine when Parse is neither feeding nor
// has anything queued, and reports whether it did and whether the feed
// woke anyone.
func (p *Pump) feedDirect(b []byte) (fed, woke bool) {
	if !p.feedMu.TryLock() {
		return false, false
	}
	defer p.feedMu.Unlock()
	if p.queued.Load() != 0 {
		return false, false
	}
	return true, p.feed([][]byte{b})
}

// Parse feeds what Read handed it, everything queued at once, until Read
// has stopped and its last chunk is fed.
func (p *Pump) Parse() {
	batch := make([][]byte, 0, buffers)
	for b := range p.chunks {
		batch = append(batch[:0], b)
	more:
		for len(batch) < buffers {
			select {
			case q, ok := <-p.chunks:
				if !ok {
					break more
				}
				batch = append(batch, q)
			default:
				break more
			}
		}
		p.feedMu.Lock()
		p.feed(batch)
		p.queued.Add(-int32(len(batch)))
		p.feedMu.Unlock()
		for _, b := range batch {
			p.free <- b
		}
	}
}
