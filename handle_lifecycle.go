package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

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

// Projector is implemented by extensions that can strip their provider's
// chrome from a screen (a Lua extension does when the plugin exports
// project(ctx)).
type Projector interface {
	Project(ctx context.Context, cc ClassifyContext) (dialog, projectorID string, ok bool, err error)
}

// Project renders the current screen as a DialogProjection: the plugin's
// projector when it has one, the normalized screen otherwise. head and tail
// are line counts (0: defaults). Its texts are redacted with the handle's
// redactor (HandleOptions.Redactor).
func (h *ExtensionHandle) Project(ctx context.Context, head, tail int) (contract.DialogProjection, error) {
	p, snap, err := h.projectRaw(ctx, head, tail)
	if err != nil {
		return contract.DialogProjection{}, err
	}
	cols := snap.Size.Cols
	return redactProjection(p, cols, h.red.quotingScreen(snap.PlainText, cols)), nil
}

// projectRaw is Project unredacted, with the raw screen it projected.
func (h *ExtensionHandle) projectRaw(ctx context.Context, head, tail int) (contract.DialogProjection, ScreenSnapshot, error) {
	if err := h.turn.lock(ctx); err != nil {
		return contract.DialogProjection{}, ScreenSnapshot{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return contract.DialogProjection{}, ScreenSnapshot{}, ErrSessionClosed
	}
	return h.projectInTurn(ctx, head, tail)
}

func (h *ExtensionHandle) projectInTurn(ctx context.Context, head, tail int) (contract.DialogProjection, ScreenSnapshot, error) {
	snap := h.s.Snapshot(SnapshotOptions{Raw: true})
	dialog, projector := "", ""
	if p, ok := h.ext.(Projector); ok {
		h.extMu.Lock()
		d, id, ok, err := p.Project(ctx, h.contextLocked(snap))
		h.extMu.Unlock()
		if err != nil {
			return contract.DialogProjection{}, snap, fmt.Errorf("plugin %s: project: %w", h.ext.Manifest().Name, err)
		}
		if ok {
			dialog, projector = d, id
		}
	}
	return contract.NewDialogProjection(snap.PlainText, dialog, h.ext.Manifest().Name, projector, head, tail), snap, nil
}

// Extract runs a caller-owned extraction over the projected dialog,
// redacted with e.Redactor (nil: the handle's redactor) before it is
// searched.
func (h *ExtensionHandle) Extract(ctx context.Context, e Extraction) (ExtractResult, error) {
	p, snap, err := h.projectRaw(ctx, 0, 0)
	if err != nil {
		return ExtractResult{}, err
	}
	// The dialog is the screen laid out anew: hide the pieces of a secret
	// a program wrapped, which no pattern finds in it (quotingScreen).
	return e.Extract(h.redactor(e.Redactor).quotingScreen(snap.PlainText, snap.Size.Cols).Redact(p.DialogText))
}

// Extraction is caller-owned answer association over projected dialog.
type Extraction struct {
	// Regex searches the last TailChars characters; the first capture group
	// (or the whole match) is the answer.
	Regex string `json:"regex,omitempty"`
	// Sentinels [start, end] delimit the answer after the last start marker.
	Sentinels []string `json:"sentinels,omitempty"`
	// TailChars bounds the searched text (0: all of it).
	TailChars int `json:"tail_chars,omitempty"`
	// Redactor redacts the dialog before ExtensionHandle.Extract searches
	// it, so the answer is redacted like every other read: nil means the
	// handle's redactor (HandleOptions.Redactor), NoRedaction searches the
	// raw dialog. Extraction.Extract searches the text it is given as it is.
	Redactor *Redactor `json:"-"`
}

// ExtractResult is an extracted answer, or the report that none was found.
type ExtractResult struct {
	// Matched is false when the pattern or sentinels were not in the
	// searched text (Extract then also returns ErrNoMatch).
	Matched bool   `json:"matched"`
	Text    string `json:"text"`
	Method  string `json:"method"`
	// SearchedChars is how many characters were searched: the dialog, or
	// its last TailChars.
	SearchedChars int `json:"searched_chars"`
}

// Extract runs e over text.
func (e Extraction) Extract(text string) (ExtractResult, error) {
	if e.TailChars < 0 {
		return ExtractResult{}, fmt.Errorf("%w: tail_chars: must not be negative", ErrInvalidParams)
	}
	if (e.Regex == "") == (len(e.Sentinels) == 0) {
		return ExtractResult{}, fmt.Errorf("%w: exactly one of regex or sentinels is required", ErrInvalidParams)
	}
	searched := utf8.RuneCountInString(text)
	if e.TailChars > 0 && searched > e.TailChars {
		r := []rune(text)
		text, searched = string(r[len(r)-e.TailChars:]), e.TailChars
	}
	if e.Regex != "" {
		re, err := regexp.Compile(e.Regex)
		if err != nil {
			return ExtractResult{}, fmt.Errorf("%w: regex: %v", ErrInvalidParams, err)
		}
		all := re.FindAllStringSubmatchIndex(text, -1)
		if len(all) == 0 {
			return ExtractResult{Method: "tail_regex", SearchedChars: searched}, fmt.Errorf("%w: regex %q in %d characters", ErrNoMatch, e.Regex, searched)
		}
		return ExtractResult{Matched: true, Text: *capture(text, all[len(all)-1]), Method: "tail_regex", SearchedChars: searched}, nil
	}
	if len(e.Sentinels) != 2 || e.Sentinels[0] == "" || e.Sentinels[1] == "" {
		return ExtractResult{}, fmt.Errorf("%w: sentinels: need [start, end], both non-empty", ErrInvalidParams)
	}
	start, end := e.Sentinels[0], e.Sentinels[1]
	// The last start marker wins: a prompt that quotes the sentinels comes
	// before the model's answer. Its end must follow, or the answer is not
	// complete yet.
	if i := strings.LastIndex(text, start); i >= 0 {
		body := text[i+len(start):]
		if j := strings.Index(body, end); j >= 0 {
			return ExtractResult{Matched: true, Text: strings.TrimSpace(unwrap(body[:j])), Method: "sentinel", SearchedChars: searched}, nil
		}
	}
	return ExtractResult{Method: "sentinel", SearchedChars: searched}, fmt.Errorf("%w: sentinels %q…%q in %d characters", ErrNoMatch, start, end, searched)
}

// unwrap joins a payload the terminal wrapped over several rows.
func unwrap(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}
