package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"ptywright/contract"
)

const (
	// promptSubmittedIntent is the last_intent a plan records when it
	// submits a prompt; it anchors a lifecycle turn.
	promptSubmittedIntent = "prompt_submitted"
	// MatchLifecycle is the Kind of the MatchOutcome a lifecycle wait
	// (ExtensionHandle.Wait with the intent contract.LifecycleWaitIntent)
	// answers with. It is an outcome kind only, never a matcher:
	// Session.Wait refuses a Matcher of this type.
	MatchLifecycle MatcherType = "lifecycle"
)

// lifecycle is a handle's tracker and the goroutine that feeds it. Its
// fields other than stop, done and the notification fields are guarded
// by the handle's extMu.
type lifecycle struct {
	tr      *contract.LifecycleTracker
	status  contract.LifecycleStatus
	changed chan struct{} // closed and replaced when status changes
	// rearm wakes observeLoop to take the tracker's next deadline again
	// after a step it did not make itself (a confirmed turn may already
	// be a completion candidate, with no screen change to come).
	rearm chan struct{}
	stop  chan struct{}
	done  chan struct{}
	// OnLifecycle hears the changes from notifyLoop, in order and holding
	// no lock (a callback may take a lock that someone holds while
	// reading Lifecycle), so that a slow callback holds up no
	// classification. pending (guarded by extMu) is what it has yet to
	// hear; wake tells it there is some.
	pending  []contract.LifecycleStatus
	wake     chan struct{}
	notified chan struct{} // closed when notifyLoop has stopped
}

func (h *ExtensionHandle) startLifecycle(opts contract.LifecycleOptions) {
	now := time.Now()
	tr := contract.NewLifecycleTracker(opts, now)
	h.lc = &lifecycle{tr: tr, status: tr.Status(), changed: make(chan struct{}), rearm: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1), notified: make(chan struct{})}
	go h.observeLoop()
	go h.notifyLoop()
}

// stopLifecycle stops the observer, then the notifier once it has told
// OnLifecycle every change made before.
func (h *ExtensionHandle) stopLifecycle() {
	if h.lc == nil {
		return
	}
	close(h.lc.stop)
	<-h.lc.done
	<-h.lc.notified
}

// notifyLoop calls OnLifecycle with every change, in order, until the
// lifecycle stops; the changes made before the stop are all told.
func (h *ExtensionHandle) notifyLoop() {
	defer close(h.lc.notified)
	for {
		stopped := false
		select {
		case <-h.lc.wake:
		case <-h.lc.stop:
			stopped = true
		}
		for {
			h.extMu.Lock()
			batch := h.lc.pending
			h.lc.pending = nil
			h.extMu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, st := range batch {
				h.opts.OnLifecycle(st)
			}
		}
		if stopped {
			return
		}
	}
}

// observeLoop classifies on every screen change and when a time-based
// transition is due, and feeds the tracker. It never takes the turn lock, so
// the lifecycle advances while a long wait holds it.
func (h *ExtensionHandle) observeLoop() {
	defer close(h.lc.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	ctx := context.Background()
	for {
		changed := h.s.observe(observeNext).next
		h.classifyNow(ctx) // Which feeds the tracker.
		h.extMu.Lock()
		deadline := h.lc.tr.NextDeadline()
		h.extMu.Unlock()
		var tick <-chan time.Time
		if !deadline.IsZero() {
			timer.Reset(time.Until(deadline))
			tick = timer.C
		}
		select {
		case <-h.lc.stop:
			return
		case <-changed:
			// A burst of output is observed once per wake-up: the next
			// watch returns the latest sequence.
		case <-h.lc.rearm:
		case <-tick:
			h.publish(func(tr *contract.LifecycleTracker) contract.LifecycleStatus { return tr.Tick(time.Now()) })
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

func noop() {}

// feedLocked gives the tracker what st and snap show (the caller holds
// extMu) and returns stepLocked's notification.
func (h *ExtensionHandle) feedLocked(st StateSnapshot, snap ScreenSnapshot) (notify func()) {
	if st.Assessment == nil {
		return noop // Plugins without assessments have no lifecycle evidence.
	}
	obs := contract.Observation{Time: time.Now(), Assessment: *st.Assessment, NormalizedText: contract.NormalizeText(snap.PlainText)}
	return h.stepLocked(func(tr *contract.LifecycleTracker) contract.LifecycleStatus { return tr.Observe(obs) })
}

// submitTurn proposes a turn anchored at the latest observation; the
// lifecycle reports it only once settleTurn confirms it.
func (h *ExtensionHandle) submitTurn() {
	if h.lc == nil {
		return
	}
	h.publish(func(tr *contract.LifecycleTracker) contract.LifecycleStatus { return tr.Submit(time.Now()) })
}

// settleTurn starts the proposed turn when the program took the prompt
// (or nobody can tell), and drops it when the program ignored it: an
// ignored send never starts, advances or completes a turn.
func (h *ExtensionHandle) settleTurn(taken bool) {
	if h.lc == nil {
		return
	}
	h.publish(func(tr *contract.LifecycleTracker) contract.LifecycleStatus {
		if taken {
			return tr.Confirm(time.Now())
		}
		return tr.Withdraw()
	})
	select {
	case h.lc.rearm <- struct{}{}:
	default: // A wake-up is already pending.
	}
}

// publish applies step under extMu and reports a changed status.
func (h *ExtensionHandle) publish(step func(*contract.LifecycleTracker) contract.LifecycleStatus) {
	h.extMu.Lock()
	notify := h.stepLocked(step)
	h.extMu.Unlock()
	notify()
}

// stepLocked applies step to the tracker (the caller holds extMu) and,
// when the status moved, queues it for OnLifecycle; it returns what to
// run once extMu is let go: waking the notifier, or nothing.
func (h *ExtensionHandle) stepLocked(step func(*contract.LifecycleTracker) contract.LifecycleStatus) (notify func()) {
	prev := h.lc.status
	st := step(h.lc.tr)
	h.lc.status = st
	moved := st.State != prev.State || st.TurnID != prev.TurnID || st.SubmitReady != prev.SubmitReady || len(st.Anomalies) > 0
	if !moved {
		return noop
	}
	close(h.lc.changed)
	h.lc.changed = make(chan struct{})
	if h.opts.OnLifecycle == nil {
		return noop
	}
	h.lc.pending = append(h.lc.pending, st)
	wake := h.lc.wake
	return func() {
		select {
		case wake <- struct{}{}:
		default: // A wake-up is pending already: the notifier takes st with it.
		}
	}
}

// Lifecycle returns the turn lifecycle, or nil when the handle does not
// track one (HandleOptions.Lifecycle unset).
func (h *ExtensionHandle) Lifecycle() *contract.LifecycleStatus {
	if h.lc == nil {
		return nil
	}
	h.extMu.Lock()
	defer h.extMu.Unlock()
	st := h.lc.status
	return &st
}

// waitLifecycle blocks until the lifecycle reaches the requested state.
func (h *ExtensionHandle) waitLifecycle(ctx context.Context, params json.RawMessage) (*WaitResult, error) {
	if h.lc == nil {
		return nil, fmt.Errorf("%w: %s: this adapter does not track a lifecycle", ErrInvalidParams, contract.LifecycleWaitIntent)
	}
	var p struct {
		State                 contract.LifecycleState `json:"state"`
		CompletedTurnStableMs *int64                  `json:"completed_turn_stable_ms"`
	}
	if err := strictDecode(params, &p); err != nil {
		return nil, fmt.Errorf("%w: %s params: %v", ErrInvalidParams, contract.LifecycleWaitIntent, err)
	}
	switch p.State {
	case "":
		p.State = contract.LifecycleCompleted
	case contract.LifecycleWaiting, contract.LifecycleInProgress, contract.LifecycleCandidateComplete, contract.LifecycleCompleted, contract.LifecycleStalled:
	default:
		return nil, fmt.Errorf("%w: %s params.state: unknown lifecycle state %q", ErrInvalidParams, contract.LifecycleWaitIntent, p.State)
	}
	start := time.Now()
	for {
		h.extMu.Lock()
		st, changed := h.lc.status, h.lc.changed
		h.extMu.Unlock()
		if st.State == p.State {
			snap := h.s.Snapshot(SnapshotOptions{Redactor: h.red})
			return &WaitResult{
				Matched:        true,
				Sequence:       snap.Sequence,
				Elapsed:        time.Since(start),
				Snapshot:       snap,
				TranscriptTail: h.s.transcriptTail(h.red),
				Outcome:        &MatchOutcome{Kind: MatchLifecycle, Text: string(st.State)},
			}, nil
		}
		if h.s.isClosed() {
			return nil, h.s.waitError(ErrSessionClosed, start, h.red)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			cause := ErrCancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				cause = ErrTimeout
			}
			return nil, h.s.waitError(cause, start, h.red)
		}
	}
}
