package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"
)

// MaxInFlight bounds the requests (a batch counts as one) one connection may
// have running at once. When it is reached the server stops reading from
// that connection until one finishes.
const MaxInFlight = 64

// closeGrace bounds how long a connection that is ending (the server
// closes, or its context ends) keeps writing the answers of its cancelled
// requests to a peer that does not read them: then the stream is closed.
const closeGrace = 2 * time.Second

// hangupPoll is how often a connection whose peer stopped sending (EOF)
// while requests are still running checks whether the peer is gone
// entirely (hangup.go).
const hangupPoll = 100 * time.Millisecond

// conn serves one client: a reader goroutine reads frames, each request
// runs in its own goroutine, and one writer goroutine writes responses and
// then notifications, so a long session.wait never holds up the requests
// behind it. The goroutine that called serve sees the connection through
// its end (see serve).
type conn struct {
	srv    *Server
	id     uint64
	log    *slog.Logger
	rwc    io.ReadWriteCloser
	reader FrameReader
	writer FrameWriter
	// hangup reports whether the peer is gone entirely, not only done
	// sending; nil when the transport cannot tell (hangup.go).
	hangup func() bool

	// ctx is what requests run under: cancelled when the server closes,
	// the context given to Serve or ServeConn ends, a write fails, or the
	// peer is gone; cancel records why.
	ctx    context.Context
	cancel context.CancelCauseFunc

	sem        chan struct{} // one token per request in flight
	held       *byteBudget   // the bytes of the requests in flight
	reqs       sync.WaitGroup
	reqsMu     sync.Mutex    // orders reqs.Add against the end's reqs.Wait
	stopped    bool          // no request starts any more (under reqsMu)
	out        chan response // encoded responses for the writer
	idle       chan struct{} // closed when reading ended and all requests finished
	writerDone chan struct{}
	writeErr   error // set by the writer before writerDone closes

	notes *notifier
}

// Why a connection's requests were cancelled (context.Cause of conn.ctx).
var (
	errPeerGone    = errors.New("rpc: the peer is gone")
	errWriteFailed = errors.New("rpc: a write failed")
	errConnClosing = errors.New("rpc: the connection is closing")
)

// response is an encoded response (or batch of them) for the writer, and
// the notification holds its request took (hold.go), which the writer
// releases once it is written.
type response struct {
	b     []byte
	holds *holds
}

// serve runs the connection to its end:
//
//   - The peer stops sending (EOF): the requests already read run to their
//     end and are answered, so `printf '...' | ptywright serve --stdio`
//     gets its answers; but once the peer is gone entirely (hangup.go:
//     checked at the EOF and every hangupPoll after it) they are cancelled
//     at once, as adapter.cancel_wait would cancel them, since nobody is
//     left to read their answers.
//   - Reading fails otherwise (a reset), or a write fails: the requests
//     are cancelled at once.
//   - ctx ends or the server closes: no new request starts, the requests
//     running are cancelled, and their answers (-32005 for a wait, with
//     its evidence) are written before the stream closes, for at most
//     closeGrace to a peer that does not read them.
//
// The stream is closed only after the writer has finished, so a request
// the connection started always gets its answer unless the peer is gone.
func (c *conn) serve() error {
	c.srv.reg.subscribe(c.notes)
	defer c.srv.reg.unsubscribe(c.notes)
	defer c.srv.events.Subscribe(c.notes.postEvent)()
	go c.writeLoop()
	// A peer that does not read the answers must not hold the end up: the
	// stream is closed closeGrace after cancellation, which fails the
	// blocked write.
	graceDone := make(chan struct{})
	stopGrace := context.AfterFunc(c.ctx, func() {
		defer close(graceDone)
		t := time.NewTimer(closeGrace)
		defer t.Stop()
		select {
		case <-t.C:
			c.log.Debug("the peer reads no answers; closing the connection")
			_ = c.rwc.Close() // Best effort: unblocks the writer with an error.
		case <-c.writerDone:
		}
	})
	readDone := make(chan error, 1)
	go func() { readDone <- c.readLoop() }()
	var readErr error
	reading := true
	select {
	case readErr = <-readDone:
		reading = false
	case <-c.ctx.Done():
	}
	var hangup func() bool
	switch {
	case reading:
		// Cancelled: the reader is still blocked in a read, which the
		// close below ends.
	case readErr != nil:
		// The transport failed (a connection reset, say): nobody is left
		// to answer.
		c.cancel(errPeerGone)
	case c.hangup != nil && c.hangup():
		c.cancel(errPeerGone)
	default:
		hangup = c.hangup
	}
	c.stopRequests()
	c.awaitRequests(hangup)
	// Its requests are over: what it alone owned goes (owner
	// "connection"), before the stream closes.
	c.srv.releaseOwned(c.id)
	c.srv.releaseControl(c.id)
	close(c.idle)
	<-c.writerDone
	if !stopGrace() {
		<-graceDone
	}
	c.cancel(errConnClosing)
	_ = c.rwc.Close() // Best effort: the connection is finished either way.
	if reading {
		<-readDone // The close ended its read.
	}
	switch {
	case c.srv.isClosed():
		return ErrServerClosed
	case errors.Is(context.Cause(c.ctx), errPeerGone):
		// A client that hangs up is no error, nor are the writes its
		// absence failed.
		return nil
	case c.writeErr != nil:
		return c.writeErr
	case reading:
		return context.Canceled
	}
	return readErr
}

// stopRequests makes sure no request starts any more, so awaitRequests
// waits for a fixed set.
func (c *conn) stopRequests() {
	c.reqsMu.Lock()
	c.stopped = true
	c.reqsMu.Unlock()
}

// startRequest counts a request in unless the connection is ending.
func (c *conn) startRequest() bool {
	c.reqsMu.Lock()
	defer c.reqsMu.Unlock()
	if c.stopped {
		return false
	}
	c.reqs.Add(1)
	return true
}

// awaitRequests waits for the requests in flight. With hangup set (the
// peer stopped sending but may still read), it checks every hangupPoll
// whether the peer is gone entirely, and then cancels them.
func (c *conn) awaitRequests(hangup func() bool) {
	if hangup == nil {
		c.reqs.Wait()
		return
	}
	done := make(chan struct{})
	go func() {
		c.reqs.Wait()
		close(done)
	}()
	t := time.NewTicker(hangupPoll)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			if c.ctx.Err() == nil && hangup() {
				c.log.Debug("the peer hung up; cancelling its requests")
				c.cancel(errPeerGone)
			}
		}
	}
}

// readLoop reads until the end of the stream, a fatal framing error, or
// cancellation. Framing errors it can recover from are answered and skipped.
// An end of the stream (or a fatal framing error) returns nil.
func (c *conn) readLoop() error {
	for {
		frame, err := c.reader.ReadFrame()
		if c.ctx.Err() != nil {
			return c.ctx.Err() // The frame (or error) came too late.
		}
		if err != nil {
			var fe *FrameError
			if errors.As(err, &fe) {
				c.log.Debug("bad frame", "err", redact(fe.Error()))
				select {
				case c.out <- response{b: encodeResponse(nil, nil, fe)}:
				case <-c.writerDone:
				}
				if fe.Fatal {
					return nil
				}
				continue
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("rpc: read: %w", err)
		}
		size := len(frame)
		if err := c.held.acquire(c.ctx, size); err != nil {
			return err
		}
		items, batch := parseFrame(frame)
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			c.held.release(size)
			return c.ctx.Err()
		}
		if !c.startRequest() {
			<-c.sem
			c.held.release(size)
			return c.ctx.Err()
		}
		go func() {
			defer c.reqs.Done()
			defer c.held.release(size) // The frame is garbage once the request is done.
			defer func() { <-c.sem }()
			ctx, h := withHolds(c.ctx, c.notes)
			var b []byte
			if batch {
				b = c.runBatch(ctx, items)
			} else {
				b = c.handle(ctx, items[0])
			}
			if b == nil {
				h.release() // a notification: nothing to wait for
				return
			}
			c.out <- response{b: b, holds: h}
		}()
	}
}

// runBatch runs a batch's requests concurrently and returns the one array
// that answers them in request order; notifications have no entry, and a
// batch of only notifications gets no response at all (nil).
func (c *conn) runBatch(ctx context.Context, items []item) []byte {
	resps := make([][]byte, len(items))
	sem := make(chan struct{}, MaxInFlight)
	var wg sync.WaitGroup
	for i, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			resps[i] = c.handle(ctx, it)
		})
	}
	wg.Wait()
	var b []byte
	for _, r := range resps {
		if r == nil {
			continue
		}
		if b == nil {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	if b == nil {
		return nil
	}
	return append(b, ']')
}

// handle runs one request under ctx and returns its encoded response, or
// nil for a notification. A panic in a handler becomes an internal error.
func (c *conn) handle(ctx context.Context, it item) (resp []byte) {
	if it.err != nil {
		return encodeResponse(it.req.id, nil, it.err)
	}
	req := it.req
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("handler panicked", "method", redact(req.method), "panic", redact(fmt.Sprint(p)), "stack", string(debug.Stack()))
			err := fmt.Errorf("%w: %s panicked: %v", ErrInternal, req.method, p)
			resp = nil
			if req.isCall() {
				resp = encodeResponse(req.id, nil, err)
			}
		}
	}()
	result, err := c.call(ctx, req)
	if !req.isCall() {
		if err != nil {
			c.log.Debug("notification failed", "method", redact(req.method), "err", redact(err.Error()))
		}
		return nil
	}
	return encodeResponse(req.id, result, err)
}

func (c *conn) call(ctx context.Context, req request) (any, error) {
	m, ok := c.srv.methods[req.method]
	if !ok {
		// Says where the methods are listed: a client that guessed a name
		// learns how not to guess.
		return nil, fmt.Errorf("%w: %q (rpc.discover lists the methods; see docs/protocol.md)", ErrMethodNotFound, req.method)
	}
	return m.handler(ctx, c, req.params)
}

// writeLoop is the only writer of the stream. Responses go first; pending
// notifications are built and written when no response is waiting, and
// those a request caused are held until its response is written (hold.go),
// so for a request the direct response precedes the notifications it
// caused. While it is busy writing, events coalesce in the notifier.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	failed := false
	fail := func(err error) {
		if err != nil {
			failed = true
			c.writeErr = fmt.Errorf("rpc: write: %w", err)
			c.log.Debug("write failed; closing the connection", "err", redact(err.Error()))
			if goneWriting(err) {
				c.cancel(errPeerGone)
			} else {
				c.cancel(errWriteFailed)
			}
		}
	}
	writeFrame := func(b []byte) {
		if failed {
			return // Drain without writing, so that no request blocks.
		}
		fail(c.writer.WriteFrame(b))
	}
	write := func(r response) {
		writeFrame(r.b)
		if r.holds != nil {
			r.holds.release()
		}
	}
	for {
		select {
		case r := <-c.out:
			write(r)
			continue
		default:
		}
		if !failed && c.notes.pending() {
			frames := c.notes.collect()
			if fb, ok := c.writer.(frameBatcher); ok && len(frames) > 1 {
				fail(fb.writeFrames(frames))
			} else {
				for _, b := range frames {
					writeFrame(b)
				}
			}
			continue
		}
		select {
		case r := <-c.out:
			write(r)
		case <-c.notes.ready:
		case <-c.idle:
			for {
				select {
				case r := <-c.out:
					write(r)
				default:
					return
				}
			}
		}
	}
}
