package ptywright

import (
	"context"
	"errors"
	"time"
)

// turnLock is the ExtensionHandle's turn lock: a mutex that a queued caller
// can stop waiting for. A call queued behind a long Turn keeps its own
// deadline and cancellation instead of inheriting the holder's.
type turnLock chan struct{}

func newTurnLock() turnLock { return make(turnLock, 1) }

// lock takes the lock, or returns ctx's error (wrapped in ErrTimeout or
// ErrCancelled) if ctx ends first.
func (l turnLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	default:
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return cancelErr(ctx.Err())
	}
}

// tryLock takes the lock if it is free.
func (l turnLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

func (l turnLock) unlock() { <-l }

// queuedWaitError turns a lock error of a wait into the *WaitError a wait's
// caller expects (the last screen and transcript as evidence).
func (h *ExtensionHandle) queuedWaitError(err error, start time.Time) error {
	cause := ErrCancelled
	if errors.Is(err, ErrTimeout) {
		cause = ErrTimeout
	}
	return h.explainWaitError(context.Background(), h.s.waitError(cause, start, h.red))
}
