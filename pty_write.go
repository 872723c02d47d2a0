package ptywright

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// Writes to the program: input (one write at a time, each within its own
// context) and the terminal's replies.

// replyQueue is how many terminal replies may wait for the child to read
// its input; more are dropped.
const replyQueue = 64

// queueReply hands a terminal reply to the writer, starting it the first
// time, without ever blocking the parser; under a child that never reads
// its input, replies are dropped, and once Close has begun, all of them.
// It may be called from any goroutine (x/vt's replies come from its own).
func (s *Session) queueReply(b []byte) {
	s.replyMu.Lock()
	defer s.replyMu.Unlock()
	if s.replies == nil {
		if s.repliesEnded {
			return
		}
		s.replies, s.replyDone = make(chan []byte, replyQueue), make(chan struct{})
		go s.writeReplies(s.replies, s.replyDone)
	}
	select {
	case s.replies <- b:
	default:
	}
}

// stopReplies stops the reply writer, if one started, and keeps another
// from starting.
func (s *Session) stopReplies() {
	s.replyMu.Lock()
	s.repliesEnded = true
	done := s.replyDone
	s.replyMu.Unlock()
	close(s.stop)
	if done != nil {
		<-done
	}
}

// writeReplies writes the replies queued on replies until Close, then
// closes done.
func (s *Session) writeReplies(replies <-chan []byte, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-s.stop:
			return
		case b := <-replies:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, _ = s.write(ctx, b) // Best effort: a child that stopped reading loses its replies.
			cancel()
		}
	}
}

// write sends b to the child after the writes before it and returns how
// many bytes went in. It gives up, with an *InputError, when ctx ends, the
// child exits or the session closes, while waiting its turn or writing.
func (s *Session) write(ctx context.Context, b []byte) (int, error) {
	if err := s.takeWriteTurn(ctx, len(b)); err != nil {
		return 0, err
	}
	defer func() { <-s.wsem }()
	return s.writeHeld(ctx, b)
}

// takeWriteTurn waits until no other write is under way and takes the
// turn (wsem), for a write of n bytes; the caller gives it back with
// <-s.wsem. It gives up, with an *InputError, as write does.
func (s *Session) takeWriteTurn(ctx context.Context, n int) error {
	select {
	case s.wsem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &InputError{Len: n, Err: cancelErr(ctx.Err())}
	case <-s.stop:
		return &InputError{Len: n, Err: ErrSessionClosed}
	case <-s.childGone:
		return &InputError{Len: n, Err: ErrProcessExited}
	}
}

// writeHeld is write once the caller holds wsem.
func (s *Session) writeHeld(ctx context.Context, b []byte) (int, error) {
	switch {
	case ctx.Err() != nil:
		return 0, &InputError{Len: len(b), Err: cancelErr(ctx.Err())}
	case isDone(s.childGone):
		// The kernel would take the bytes without complaint, for nobody.
		return 0, &InputError{Len: len(b), Err: ErrProcessExited}
	}
	stop := context.AfterFunc(ctx, func() {
		_ = s.proc.master.SetWriteDeadline(time.Unix(1, 0)) // Best effort: unblocks the write below.
	})
	var n int
	err := s.proc.writeInput(b, &n)
	if !stop() && !isDone(s.childGone) {
		// ctx's deadline may have been set; clear it for the next writer
		// (after the child's exit waitLoop's stays: no write may block).
		_ = s.proc.master.SetWriteDeadline(time.Time{})
	}
	if err == nil {
		return n, nil
	}
	switch {
	case errors.Is(err, os.ErrClosed):
		err = ErrSessionClosed
	case isDone(s.childGone) && errors.Is(err, os.ErrDeadlineExceeded):
		err = ErrProcessExited
	case ctx.Err() != nil:
		err = cancelErr(ctx.Err())
	default:
		err = fmt.Errorf("ptywright: write input: %w", err)
	}
	return n, &InputError{Written: n, Len: len(b), Err: err}
}

func cancelErr(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	}
	return fmt.Errorf("%w: %w", ErrCancelled, err)
}

// interruptPatience is how long an interrupt's ^C may wait to go in before
// it is delivered as the signal the terminal would make of it.
const interruptPatience = 100 * time.Millisecond

// interrupt performs ActionInterrupt (b is ^C). A ^C that cannot be
// written (another write holds the input, or the kernel takes no more
// input from a program that stopped reading) would never reach the line
// discipline that turns it into SIGINT: when the terminal has ISIG set,
// the session delivers that SIGINT to the foreground process group itself
// (w.Signalled). Otherwise the ^C waits its turn like any input. A ^C the
// kernel does take, into a queue the program no longer reads, is like a
// key typed on a real terminal then: the line discipline sees it only
// when the program reads again.
func (s *Session) interrupt(ctx context.Context, w Written, b []byte) (Written, error) {
	select {
	case s.wsem <- struct{}{}:
		defer func() { <-s.wsem }()
		s.rec.input(b)
		short, cancel := context.WithTimeout(ctx, interruptPatience)
		n, err := s.writeHeld(short, b)
		cancel()
		if err == nil || n > 0 || ctx.Err() != nil || !errors.Is(err, ErrTimeout) {
			w.Bytes = n
			return w, err
		}
		if w, ok, err := s.interruptBySignal(w); ok || err != nil {
			return w, err
		}
		n, err = s.writeHeld(ctx, b)
		w.Bytes = n
		return w, err
	default:
		if w, ok, err := s.interruptBySignal(w); ok || err != nil {
			return w, err
		}
	}
	s.rec.input(b)
	n, err := s.write(ctx, b)
	w.Bytes = n
	return w, err
}

// interruptBySignal delivers an interrupt as SIGINT when the terminal
// would (ok), and reports ok false when it would not.
func (s *Session) interruptBySignal(w Written) (Written, bool, error) {
	signalled, err := s.proc.interruptBySignal()
	if err != nil {
		return w, false, fmt.Errorf("ptywright: interrupt: %w", err)
	}
	w.Signalled = signalled
	return w, signalled, nil
}
