package ptyio

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A Pump carries a PTY master's output to what parses it. Run reads the
// master and feeds what it read; once a read must wait for a parse (a
// flood), it starts a second goroutine that parses while the reading goes
// on, so that the child's next write is being read while the last one is
// parsed, as a terminal would (a single goroutine leaves the PTY undrained
// while it parses, and the child blocks). The read buffers go round
// between the two, so a parser that falls behind stops the reader (and so
// the child) once they are all full, never memory.
//
// Run feeds a short read itself when the parser has nothing queued and is
// not feeding: output that comes a line or a redraw at a time (a prompt, a
// reply someone waits for) then reaches the screen and its waiters without
// waking the parser goroutine, a scheduler hand-off per read; the parser
// keeps what it is for, parsing a flood while Run reads on. Feeding stays
// serial and in order: feedMu is held by whichever goroutine feeds, and
// Run feeds only when queued (chunks it sent the parser that the parser
// has not fed; only Run adds to it) is zero, so nothing it read earlier is
// on its way.
//
// A feed reports whether it woke a goroutine (a wait the output may
// answer). After such a feed of its own, Run yields its P before reading
// on: the woken goroutine was put first in line on Run's P, and would
// otherwise start only once Run's next read had found nothing and parked
// it, a system call later; the idle P the wake-up started takes Run.
//
// Memory is taken as the output asks for it. An idle session holds one
// buffer of minBufSize bytes and one goroutine; the buffers double, up to
// bufSize, each time a read fills one, and there are more of them (up to
// buffers) only while the parser is behind. They are let go when Run
// returns.
type Pump struct {
	feed   func([][]byte) (woke bool)
	chunks chan []byte // read, on their way to the parser
	free   chan []byte // buffers the parser is done with
	feedMu sync.Mutex
	queued atomic.Int32
	err    error // why Run stopped; set before it returns

	// Owned by Run's goroutine.
	made    int           // buffers made and not dropped
	ever    int           // buffers made in all (the tests')
	size    int           // the size of the next buffer made
	parsing chan struct{} // closed when the parser ends; nil until it starts
}

const (
	// bufSize is the largest hand-off buffer, filled by draining the
	// master (Drain), so a flood reaches the parser in large chunks.
	bufSize = 64 << 10
	// minBufSize is the first buffer's size: an idle or interactive
	// session's reads rarely fill it.
	minBufSize = 1 << 10
	// buffers is how many hand-offs may wait for the parser.
	buffers = 4
	// directFeedMax: Run feeds a read shorter than this itself when it
	// can: a line or a few, not the up to 4 KiB reads of a flood, whose
	// reading should go on while they are parsed.
	directFeedMax = 512
)

// NewPump returns a pump that passes what it reads to feed, in order, one
// call at a time; feed reports whether it woke a goroutine. It allocates
// no buffer before Run needs one.
func NewPump(feed func([][]byte) (woke bool)) *Pump {
	return &Pump{feed: feed, chunks: make(chan []byte, buffers), free: make(chan []byte, buffers), size: minBufSize}
}

// Run reads f until EIO once exited is closed (every holder of the tty is
// gone, and the child cannot open it again: see Drain) or ErrClosed
// (Close), and returns once everything it read has been fed, the parser
// goroutine it may have started has ended and its buffers are let go.
// Whoever closes exited sets a read deadline on f after it, which wakes a
// read waiting out an earlier EIO; Run clears it and reads on.
func (p *Pump) Run(f *os.File, exited <-chan struct{}) {
	var err error
	defer func() {
		p.err = err
		close(p.chunks)
		if p.parsing != nil {
			<-p.parsing
		}
		p.release()
	}()
	for {
		buf := p.buffer()
		var n int
		n, err = Drain(f, buf, exited)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The exit's wake-up: read on, now ending at EIO.
			_ = f.SetReadDeadline(time.Time{}) // A closed f ends the next Drain.
			err = nil
		}
		if n == len(buf) && p.size < bufSize {
			p.size = min(2*len(buf), bufSize) // A flood: read more at a time.
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

// buffer returns a buffer to read into: a free one of the current size, a
// new one while fewer than buffers exist, or else the next one the parser
// is done with (it is behind: wait for it). A free buffer smaller than the
// current size is dropped for a new one.
func (p *Pump) buffer() []byte {
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		default:
			if p.made < buffers {
				p.made++
				p.ever++
				return make([]byte, p.size)
			}
			buf = <-p.free // All buffers queued: the parser is behind, wait for it.
		}
		if cap(buf) >= p.size {
			return buf[:cap(buf)] // The parser hands back what it was fed.
		}
		p.made-- // Outgrown: let the garbage collector have it.
	}
}

// release lets the free buffers go: once Run has returned nothing reads
// into them again.
func (p *Pump) release() {
	for {
		select {
		case <-p.free:
			p.made--
		default:
			return
		}
	}
}

// Err returns the error that stopped Run: an EIO or ErrClosed at the end
// of the output, anything else when reading failed. Call it only once Run
// has returned.
func (p *Pump) Err() error { return p.err }

// queue hands b to the parser, starting its goroutine the first time.
func (p *Pump) queue(b []byte) {
	if p.parsing == nil {
		p.parsing = make(chan struct{})
		go p.parse()
	}
	p.queued.Add(1)
	p.chunks <- b
}

// feedDirect feeds b on Run's goroutine when the parser is neither feeding
// nor has anything queued, and reports whether it did and whether the feed
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

// parse feeds what Run handed it, everything queued at once, until Run
// has stopped and its last chunk is fed. Run starts it (queue) and waits
// for it to end.
func (p *Pump) parse() {
	defer close(p.parsing)
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
		clear(batch) // The batch must not keep buffers Run drops.
	}
}
