package ptywright_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/manifest"
)

// seqExtension records the screen sequence of every classification, in
// the order the handle asks for them (it asks one at a time, under its
// lock), and reports an assessment so that the handle's lifecycle
// observer classifies too.
type seqExtension struct {
	mu   sync.Mutex
	seen []uint64
	// flip alternates the assessment between a running turn and an idle
	// prompt at every classification, so the lifecycle keeps moving.
	flip bool
}

func (e *seqExtension) Manifest() manifest.Manifest {
	return manifest.Manifest{Name: "seq", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
}

func (e *seqExtension) Classify(_ context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	e.mu.Lock()
	e.seen = append(e.seen, cc.Sequence)
	n := len(e.seen)
	e.mu.Unlock()
	a := contract.SurfaceAssessment{Availability: contract.AvailabilitySupported, BusinessState: contract.BusinessWorking,
		InputMode: contract.InputClosed, UIContext: contract.UIContextNormalPrompt}
	if e.flip && n%2 == 1 {
		a.BusinessState, a.InputMode = contract.BusinessIdle, contract.InputFreeform
	}
	return ptywright.StateSnapshot{State: "busy", Assessment: &a}, nil
}

func (e *seqExtension) Plan(context.Context, string, json.RawMessage) (ptywright.ActionPlan, error) {
	return ptywright.ActionPlan{}, nil
}

func (e *seqExtension) WaitMatcher(context.Context, string, json.RawMessage) (ptywright.Matcher, error) {
	return ptywright.ProcessExited(), nil
}

func (e *seqExtension) Close() error { return nil }

// TestClassificationsFollowTheScreen: while the program keeps writing,
// several callers and the lifecycle observer classify at once. The plugin
// must see the screens in the order they were drawn: a classification of
// an older screen landing after a newer one would leave the plugin's
// memory (what its intents are planned against), the reported state and
// the state_changed events describing a screen that is gone.
func TestClassificationsFollowTheScreen(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "i=0; while [ $i -lt 4000 ]; do echo line $i; i=$((i+1)); done; sleep 5"}})
	require.NoError(t, err)
	defer s.Close()
	ext := &seqExtension{}
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Lifecycle: &contract.LifecycleOptions{}})
	defer h.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 150 {
				_, err := h.State(ctx)
				assert.NoError(t, err) // Not require: this is not the test's goroutine.
			}
		})
	}
	wg.Wait()

	ext.mu.Lock()
	defer ext.mu.Unlock()
	// Every State call classifies (the observer goroutine may add more,
	// but need not have run yet).
	require.GreaterOrEqual(t, len(ext.seen), 600)
	for i := 1; i < len(ext.seen); i++ {
		require.GreaterOrEqual(t, ext.seen[i], ext.seen[i-1], "classification %d saw screen %d after screen %d", i, ext.seen[i], ext.seen[i-1])
	}
}

// TestLifecycleCallbacksDoNotDeadlock: OnLifecycle takes a lock that
// another goroutine holds while it reads the handle's Lifecycle, as the
// JSON-RPC server's notifier does, while several callers classify and the
// lifecycle keeps changing. Ordering the callbacks must not make them wait
// for a lock while the handle's own lock waits for them.
func TestLifecycleCallbacksDoNotDeadlock(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i+1)); done; sleep 5"}})
	require.NoError(t, err)
	defer s.Close()
	var outside sync.Mutex // the notifier's lock
	calls := 0
	h := ptywright.NewExtensionHandle(s, &seqExtension{flip: true}, ptywright.HandleOptions{
		Lifecycle: &contract.LifecycleOptions{},
		OnLifecycle: func(contract.LifecycleStatus) {
			outside.Lock()
			calls++
			outside.Unlock()
		},
	})
	defer h.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				for range 3000 {
					_, err := h.State(ctx)
					assert.NoError(t, err) // Not require: this is not the test's goroutine.
				}
			})
		}
		wg.Go(func() {
			for range 30000 {
				outside.Lock()
				_ = h.Lifecycle()
				outside.Unlock()
			}
		})
		wg.Wait()
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		// Close would hang on the same locks: end the run with every stack.
		buf := make([]byte, 1<<20)
		panic("deadlock: classifications, lifecycle callbacks and Lifecycle readers stopped:\n" + string(buf[:runtime.Stack(buf, true)]))
	}
	outside.Lock()
	defer outside.Unlock()
	require.Greater(t, calls, 10, "the lifecycle did not move often enough to test anything")
}

// TestASlowLifecycleCallbackHoldsUpNoClassification: while OnLifecycle is
// stuck in its first call, classifications that move the lifecycle go on
// (the changes queue for the callback); once it returns, the callback
// hears every change, in order, and Close returns after the last.
func TestASlowLifecycleCallbackHoldsUpNoClassification(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "echo ready; sleep 30"}})
	require.NoError(t, err)
	defer s.Close()
	release := make(chan struct{})
	entered := make(chan struct{})
	var mu sync.Mutex
	var told []contract.LifecycleStatus
	h := ptywright.NewExtensionHandle(s, &seqExtension{flip: true}, ptywright.HandleOptions{
		Lifecycle: &contract.LifecycleOptions{},
		OnLifecycle: func(st contract.LifecycleStatus) {
			mu.Lock()
			told = append(told, st)
			first := len(told) == 1
			mu.Unlock()
			if first {
				close(entered)
				<-release
			}
		},
	})
	<-entered
	// Each classification flips the assessment between a busy program and
	// an idle prompt, and so the lifecycle's submit_ready; with the
	// callback stuck, none of them may wait for it.
	ready := map[bool]int{}
	done := make(chan error, 1)
	go func() {
		for range 20 {
			if _, err := h.State(context.Background()); err != nil {
				done <- err
				return
			}
			ready[h.Lifecycle().SubmitReady]++
		}
		done <- nil
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		close(release) // Lets the stuck classifications end before the cleanup closes the session.
		t.Fatal("classifications waited for the stuck callback")
	}
	require.Len(t, ready, 2, "the lifecycle's submit_ready did not move: %v", ready)
	final := *h.Lifecycle()
	close(release)
	require.NoError(t, h.Close())
	mu.Lock()
	defer mu.Unlock()
	require.Greater(t, len(told), 2, "the lifecycle did not move while the callback was stuck")
	require.Equal(t, final, told[len(told)-1], "the last change told is the lifecycle's last status")
}
