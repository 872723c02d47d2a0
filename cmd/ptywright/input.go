package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"ptywright"
)

// replyWait is how long a possible reply's first bytes are held back before
// they are taken for keys. A terminal writes a reply at once, so more than
// this between its bytes means a person typing (typically a lone Escape).
const replyWait = 50 * time.Millisecond

// inputForwarder copies run's stdin to the session.
type inputForwarder struct {
	s *ptywright.Session
	// filter drops terminal replies; nil passes every byte (stdin is not a
	// terminal, so its bytes are data, not replies).
	filter *replyFilter
	// sendEOF passes the end of stdin on as EOF.
	sendEOF bool
	// beforeSend runs before each write, e.g. to apply a resize that
	// happened before the input was typed; nil means nothing.
	beforeSend func()
}

// run forwards until stdin ends or fails, ctx ends, or a write to the
// session fails.
//
// The read itself runs in its own goroutine, which may stay blocked in Read
// after run returns: a terminal read cannot be interrupted without making
// the shared stdin non-blocking for every process using it. It exits on the
// next byte or with the process.
func (f *inputForwarder) run(ctx context.Context, in io.Reader) error {
	chunks := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case chunks <- bytes.Clone(buf[:n]):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err // Sent after every chunk was received.
				return
			}
		}
	}()

	var (
		out    []byte
		timer  *time.Timer
		timerC <-chan time.Time
		last   byte = '\n' // the last byte sent, to end a partial line
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	send := func(b []byte) error {
		if len(b) == 0 {
			return nil
		}
		if f.beforeSend != nil {
			f.beforeSend()
		}
		last = b[len(b)-1]
		return f.s.Send(ctx, ptywright.Paste(string(b)))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case p := <-chunks:
			if f.filter == nil {
				out = append(out[:0], p...)
			} else {
				out = f.filter.filter(out[:0], p)
				timerC = nil
				if f.filter.holding() {
					if timer == nil {
						timer = time.NewTimer(replyWait)
					} else {
						timer.Reset(replyWait)
					}
					timerC = timer.C
				}
			}
			if err := send(out); err != nil {
				return err
			}
		case <-timerC:
			timerC = nil
			if err := send(f.filter.flush(out[:0])); err != nil {
				return err
			}
		case err := <-readErr:
			if f.filter != nil {
				if err := send(f.filter.flush(out[:0])); err != nil {
					return err
				}
			}
			if !errors.Is(err, io.EOF) || !f.sendEOF {
				return nil // A terminal that went away: nothing more will come.
			}
			// In canonical mode Ctrl-D after a partial line only ends the
			// line; a second one is the EOF.
			if last != '\n' {
				if err := f.s.Send(ctx, ptywright.EOF()); err != nil {
					return err
				}
			}
			return f.s.Send(ctx, ptywright.EOF())
		}
	}
}
