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
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return 0, &InputError{Len: len(b), Err: cancelErr(ctx.Err())}
	case <-s.stop:
		return 0, &InputError{Len: len(b), Err: ErrSessionClosed}
	case <-s.childGone:
		return 0, &InputError{Len: len(b), Err: ErrProcessExited}
	}
	defer func() { <-s.wsem }()
	return s.writeHeld(ctx, b)
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
