package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
)

// MaxInFlight bounds the requests (a batch counts as one) one connection may
// have running at once. When it is reached the server stops reading from
// that connection until one finishes.
const MaxInFlight = 64

// conn serves one client: the calling goroutine reads frames, each request
// runs in its own goroutine, and one writer goroutine writes responses and
// then notifications, so a long session.wait never holds up the requests
// behind it.
type conn struct {
	srv    *Server
	id     uint64
	log    *slog.Logger
	rwc    io.ReadWriteCloser
	reader FrameReader
	writer FrameWriter

	ctx    context.Context // cancelled when the connection or the server ends
	cancel context.CancelFunc

	sem        chan struct{} // one token per request in flight
	held       *byteBudget   // the bytes of the requests in flight
	reqs       sync.WaitGroup
	out        chan response // encoded responses for the writer
	idle       chan struct{} // closed when reading ended and all requests finished
	writerDone chan struct{}
	writeErr   error // set by the writer before writerDone closes

	notes *notifier
}

// response is an encoded response (or batch of them) for the writer, and
// the notification holds its request took (hold.go), which the writer
// releases once it is written.
type response struct {
	b     []byte
	holds *holds
}

func (c *conn) serve() error {
	c.srv.reg.subscribe(c.notes)
	defer c.srv.reg.unsubscribe(c.notes)
	defer c.srv.events.Subscribe(c.notes.postEvent)()
	go c.writeLoop()
	// Closing the stream is what unblocks a read in progress.
	stop := context.AfterFunc(c.ctx, func() { _ = c.rwc.Close() }) // Best effort: the error surfaces as a read error.
	readErr := c.readLoop()
	c.reqs.Wait()
	close(c.idle)
	<-c.writerDone
	stop()
	c.cancel()
	_ = c.rwc.Close() // Best effort: the connection is finished either way.
	switch {
	case c.srv.isClosed():
		return ErrServerClosed
	case c.writeErr != nil:
		return c.writeErr
	}
	return readErr
}

// readLoop reads until the end of the stream, a fatal framing error, or
// cancellation. Framing errors it can recover from are answered and skipped.
func (c *conn) readLoop() error {
	for {
		frame, err := c.reader.ReadFrame()
		if err != nil {
			var fe *FrameError
			if errors.As(err, &fe) {
				c.log.Debug("bad frame", "err", redact(fe.Error()))
				c.out <- response{b: encodeResponse(nil, nil, fe)}
				if fe.Fatal {
					return nil
				}
				continue
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if c.ctx.Err() != nil {
				return c.ctx.Err()
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
		c.reqs.Add(1)
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
			c.cancel()
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
