package ptywright_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// A call queued behind a Turn that holds the handle keeps its own deadline
// and its own cancellation; the holder is left alone.
func TestQueuedHandleCallsKeepTheirOwnClock(t *testing.T) {
	tuitest.NoLeak(t)
	h := startRepl(t, &replExtension{})
	ctx := context.Background()
	never := json.RawMessage(`{"text":"never appears"}`)

	holderCtx, cancelHolder := context.WithCancel(ctx)
	defer cancelHolder()
	holderDone := make(chan error, 1)
	go func() {
		_, _, err := h.Wait(holderCtx, "wait_text_matcher", never)
		holderDone <- err
	}()
	// The holder has the lock once a State call queues behind it.
	require.Eventually(t, func() bool {
		qctx, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
		defer cancel()
		_, err := h.State(qctx)
		return errors.Is(err, ptywright.ErrTimeout)
	}, 5*time.Second, time.Millisecond)

	// A queued wait times out at its own deadline with the screen as evidence.
	qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, _, err := h.Wait(qctx, "wait_text_matcher", json.RawMessage(`{"text":"READY>"}`))
	cancel()
	took := time.Since(start)
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	var we *ptywright.WaitError
	require.ErrorAs(t, err, &we)
	require.Contains(t, we.Snapshot.PlainText, "READY>")
	require.Less(t, took, 3*time.Second, "the queued wait answered at its own deadline, not the holder's")

	// A queued turn ends when its caller cancels it.
	cctx, cancelQueued := context.WithCancel(ctx)
	turnDone := make(chan error, 1)
	go func() {
		_, err := h.Turn(cctx, "send_prompt", json.RawMessage(`{"prompt":"x"}`), "", nil)
		turnDone <- err
	}()
	// Queued behind the holder, which runs until cancelled.
	tuitest.ParkedIn(t, "ptywright.(*ExtensionHandle).Turn", 1)
	cancelQueued()
	select {
	case err := <-turnDone:
		require.ErrorIs(t, err, ptywright.ErrCancelled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled queued turn did not return")
	}
	// Neither touched the holder.
	select {
	case err := <-holderDone:
		t.Fatalf("the holder ended early: %v", err)
	default:
	}
	cancelHolder()
	require.ErrorIs(t, <-holderDone, ptywright.ErrCancelled)

	// The lock is free again and the queued turn never typed.
	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)
	require.NotContains(t, h.Session().Transcript(nil), "answer: x")
}

// Close does not wait for a Turn in progress: it ends it.
func TestCloseEndsAWaitInProgress(t *testing.T) {
	tuitest.NoLeak(t)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", replScript}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, &replExtension{}, ptywright.HandleOptions{})
	waitFor(t, s, ptywright.ContainsText("READY>"))
	done := make(chan error, 1)
	go func() {
		_, _, err := h.Wait(context.Background(), "wait_text_matcher", json.RawMessage(`{"text":"never"}`))
		done <- err
	}()
	require.Eventually(t, func() bool {
		qctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		defer cancel()
		_, err := h.State(qctx)
		return errors.Is(err, ptywright.ErrTimeout)
	}, 5*time.Second, time.Millisecond)
	require.NoError(t, h.Close())
	select {
	case err := <-done:
		require.ErrorIs(t, err, ptywright.ErrSessionClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("the wait outlived Close")
	}
}
