package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ptywright/contract"
	"ptywright/events"
	"ptywright/internal/wire"
	"ptywright/manifest"
)

// Defaults of the extension host loop.
const (
	// defaultWaitIntent is the wait intent used when a caller names none.
	defaultWaitIntent = "wait_turn_matcher"
	// DefaultAdapterWaitTimeout bounds a wait whose context has no deadline.
	DefaultAdapterWaitTimeout = 120 * time.Second
	// defaultCompletedTurnStableMs is forwarded to plugins as the time a
	// screen must stay unchanged to count as a settled, completed turn.
	defaultCompletedTurnStableMs = 300
	// statusBarRows is how many bottom rows count as the status bar.
	statusBarRows = 3
	// classifyTranscriptChars is how much transcript a classifier sees.
	classifyTranscriptChars = 4096
)

// Extension is the seam between the generic core and one TUI's vocabulary:
// it classifies screens into plugin-defined states and turns named intents
// into actions and matchers. luahost.Extension is the implementation shipped; a
// Go type can implement it directly.
//
// The host serialises calls on one Extension.
type Extension interface {
	// Manifest describes the plugin.
	Manifest() manifest.Manifest
	// Classify names the state the screen shows.
	Classify(ctx context.Context, cc ClassifyContext) (StateSnapshot, error)
	// Plan turns an intent into actions.
	Plan(ctx context.Context, intent string, params json.RawMessage) (ActionPlan, error)
	// WaitMatcher builds the matcher a wait intent waits for.
	WaitMatcher(ctx context.Context, intent string, params json.RawMessage) (Matcher, error)
	// Close releases the extension's runtime.
	Close() error
}

// ClassifyContext is what a classifier sees. Optional fields are nil when
// the host has nothing for them, and then absent on the Lua side.
type ClassifyContext struct {
	// Screen is the whole screen's plain text.
	Screen string `json:"screen"`
	// BodyText is the screen above the status bar; StatusText the bottom
	// 3 rows. A screen of 6 rows or fewer is all body.
	BodyText   string `json:"body_text"`
	StatusText string `json:"status_text"`
	// Transcript is the tail of the output, control codes included.
	Transcript *string `json:"transcript,omitempty"`
	Sequence   uint64  `json:"sequence"`
	// LastIntent is what the last plan recorded, if anything.
	LastIntent *string `json:"last_intent,omitempty"`
	// Title is the window title the program set, if any: some TUIs show
	// their busy state only there.
	Title *string `json:"title,omitempty"`
	// StableMs is how long the screen has been unchanged.
	StableMs *int64 `json:"stable_ms,omitempty"`
	// BracketedPaste is whether the program has bracketed paste mode on
	// (DECSET 2004). Programs that turn it on where they start reading
	// keys (the Gemini CLI does, beside raw mode) show by it whether keys
	// sent now are read; nil when the host has no live terminal to ask.
	BracketedPaste *bool `json:"bracketed_paste,omitempty"`
	// CompletedTurnStableMs is the host's settle threshold for a turn.
	CompletedTurnStableMs *int64 `json:"completed_turn_stable_ms,omitempty"`
	// Explain is set when the host asks for an Explanation of this
	// classification: the plugin may then also report what it considered
	// (classify's "considered" and "region"), which costs nothing otherwise.
	Explain bool `json:"explain,omitempty"`
	// Session and Adapter are the host's ids of the session and adapter
	// being classified (HandleOptions.Scope), when it has them: the
	// runtime context's session, for plugins that keep per-session state
	// or log it.
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
}

// StateSnapshot is a classifier's verdict.
type StateSnapshot struct {
	State      string  `json:"state"`
	Confidence float64 `json:"confidence"`
	Evidence   string  `json:"evidence"`
	Sequence   uint64  `json:"sequence"`
	// LastIntent is the host's remembered intent (null when none).
	LastIntent *string `json:"last_intent"`
	// Metadata is whatever else the plugin reports (options, status...).
	Metadata map[string]any `json:"metadata,omitempty"`
	// Assessment is the provider-agnostic reading of the surface, for
	// plugins that report one; the host validates its vocabulary.
	Assessment *contract.SurfaceAssessment `json:"assessment,omitempty"`
	// Lifecycle is the host's turn lifecycle, when the handle tracks one.
	Lifecycle *contract.LifecycleStatus `json:"lifecycle,omitempty"`
	// InputSettleMs is how long this state's screen must stay visibly
	// unchanged before it takes keys: a freshly drawn dialog may drop the
	// first keys sent to it. Send holds an intent's keys until then.
	InputSettleMs int64 `json:"input_settle_ms,omitempty"`
}

// HandleOptions tune an ExtensionHandle.
type HandleOptions struct {
	// CompletedTurnStableMs is forwarded to the classifier and injected into
	// wait params; 0 means 300.
	CompletedTurnStableMs int64
	// Predicates decides lua matchers inside wait matchers.
	Predicates contract.PredicateRegistry
	// Lifecycle, when set, makes the handle track the turn lifecycle: a
	// goroutine classifies every screen change and feeds the assessments to
	// a LifecycleTracker (see Lifecycle and the wait_lifecycle intent).
	Lifecycle *contract.LifecycleOptions
	// OnLifecycle is called when the lifecycle status changes, from a
	// goroutine of the handle's own, with none of its locks held; calls
	// come one at a time, in the order of the changes, and a slow one
	// holds up no classification (the changes queue). Close returns once
	// every change before it has been told, so it should return promptly;
	// it must not call the handle.
	OnLifecycle func(contract.LifecycleStatus)

	// Runtime SDK (handle_events.go).

	// Events, when set, receives adapter:state_changed whenever a
	// classification's state differs from the previous one, and is bound
	// to an events.Binder extension (see luahost.Extension.BindEvents).
	Events *events.Bus
	// Scope names the session and adapter in those events and in the
	// extension's own.
	Scope events.Scope

	// ReceiptWindow is how long Send looks for a plan's expected effect;
	// 0 means 1.5 s. A plan's expect.within_ms overrides it.
	ReceiptWindow time.Duration
	// MaxInputHold bounds how long Send holds keys for a state's
	// InputSettleMs; 0 means 3 s.
	MaxInputHold time.Duration

	// Redactor redacts everything the handle's methods return: states,
	// receipts, wait results and wait errors (with their explanations),
	// explanations, projections, inspections and extractions. nil means
	// the session's redactor (Options.Redactor, itself DefaultRedactor when
	// unset); NoRedaction() makes them raw. Inspect, Explain
	// (ExplainRedactor) and Extract (Extraction.Redactor) can choose
	// another redactor for one call.
	Redactor *Redactor

	// Policy, when set, decides the permission dialogs the screen shows
	// (see Policy): a goroutine of the handle classifies every change, and
	// when a rule allows or denies the dialog on screen it answers it
	// (approve or deny with its dialog_id, so label-checked at the key),
	// once per dialog instance, decided_by "rule ID", and emits
	// adapter:policy_decision on Events. ask, no rule or a screen without
	// a dialog the plugin reports leaves it alone.
	Policy *Policy

	// Audit, when set, gets one record for every answer to a dialog this
	// handle delivers or refuses at the moment of the key (plans with an
	// Answer): the dialog, the option chosen, who decided (WithDecider on
	// the call's context) and the receipt's effect. The handle does not
	// close it.
	Audit *AuditLog
}

// ExtensionHandle drives one Session through one Extension: it splits the
// screen into body and status, classifies, applies plans, runs wait
// matchers and re-classifies after every mutation. One turn lock covers
// every operation, so a Turn's send and wait happen with nothing in
// between; a caller queued behind it gives up when its context ends.
type ExtensionHandle struct {
	s    *Session
	ext  Extension
	opts HandleOptions
	red  *Redactor // opts.Redactor, nil resolved: what every read is redacted with

	turn   turnLock // held across send, wait and turn; queued callers keep their ctx
	closed bool     // guarded by turn

	// extMu serialises calls into ext (the lifecycle goroutine classifies
	// without the turn lock) and guards the fields below.
	extMu      sync.Mutex
	lastIntent *string
	surface    surface    // what the last classification showed, and since when
	lc         *lifecycle // nil unless opts.Lifecycle
	held       heldRing   // the last classifications, explainable on demand (explain.go)
	extClosed  bool       // ext is closed: nothing more to explain

	sdk handleSDK // runtime SDK: state events, cleanup on exit (handle_events.go)

	// sendMu orders deliveries: a caller's (under the turn lock) and the
	// policy's (handle_policy.go), which cannot take the turn lock.
	sendMu sync.Mutex
	policy policyRunner
	// hold, when set, refuses every delivery (a caller's and a policy's)
	// before any key: a person has the terminal (handle_hold.go).
	hold atomic.Pointer[error]
}

// NewExtensionHandle binds ext to s. The handle owns both: Close closes them.
// What its methods return is redacted with opts.Redactor (nil: the
// session's, Options.Redactor), so a caller hands it on as it is.
func NewExtensionHandle(s *Session, ext Extension, opts HandleOptions) *ExtensionHandle {
	if opts.CompletedTurnStableMs <= 0 {
		opts.CompletedTurnStableMs = defaultCompletedTurnStableMs
	}
	h := &ExtensionHandle{s: s, ext: ext, opts: opts, red: s.redactor(opts.Redactor), turn: newTurnLock()}
	h.startSDK()
	if opts.Lifecycle != nil {
		h.startLifecycle(*opts.Lifecycle)
	}
	h.startPolicy()
	return h
}

// Session returns the driven session.
func (h *ExtensionHandle) Session() *Session { return h.s }

// Manifest returns the extension's manifest.
func (h *ExtensionHandle) Manifest() manifest.Manifest { return h.ext.Manifest() }

// State classifies the current screen. Like every handle method it queues
// behind a running Send, Wait or Turn, and gives up when ctx ends while
// queued (ErrTimeout or ErrCancelled).
func (h *ExtensionHandle) State(ctx context.Context) (StateSnapshot, error) {
	if err := h.turn.lock(ctx); err != nil {
		return StateSnapshot{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return StateSnapshot{}, ErrSessionClosed
	}
	return h.classifyInTurn(ctx), nil
}

// Send plans intent, applies its actions and classifies, and reports what
// became of the intent in a Receipt: the keys are held until a freshly drawn
// state is ready for them (StateSnapshot.InputSettleMs), and when the plan
// declares an Expectation, Send looks for it (resending once if the plan
// allows) and says confirmed or ignored. An ignored intent is not an error:
// check Receipt.Effect (EffectConfirmed: the program took it).
func (h *ExtensionHandle) Send(ctx context.Context, intent string, params json.RawMessage) (SendResult, error) {
	if err := h.turn.lock(ctx); err != nil {
		return SendResult{}, err
	}
	defer h.turn.unlock()
	rc, err := h.deliverInTurn(ctx, intent, params)
	if err != nil {
		return SendResult{Receipt: rc}, err
	}
	return SendResult{State: h.classifyInTurn(context.WithoutCancel(ctx)), Receipt: rc}, nil
}

// Wait runs the matcher of a wait intent ("" means "wait_turn_matcher"), then
// classifies. opts apply to the session wait: After(receipt.Sequence) sees
// only what followed a Send. Without a deadline on ctx it gives up after
// DefaultAdapterWaitTimeout. The deadline covers the time spent queued
// behind another caller: a queued wait ends at its own deadline with a
// *WaitError, not when the holder lets go. The wait's evidence is redacted
// with the handle's redactor unless opts say otherwise (WithRedactor).
func (h *ExtensionHandle) Wait(ctx context.Context, intent string, params json.RawMessage, opts ...WaitOption) (StateSnapshot, *WaitResult, error) {
	ctx, cancel := withDefaultWaitTimeout(ctx)
	defer cancel()
	if err := h.lockForWait(ctx); err != nil {
		return StateSnapshot{}, nil, err
	}
	defer h.turn.unlock()
	return h.waitInTurn(ctx, intent, params, opts...)
}

// Turn is Send then Wait under one lock, so no other caller can slip an
// intent in between. The wait sees only what came after the send's first
// write. When the send was ignored or not sent, Turn does not wait: the
// result has the receipt and no Wait.
func (h *ExtensionHandle) Turn(ctx context.Context, intent string, params json.RawMessage, waitIntent string, waitParams json.RawMessage) (TurnResult, error) {
	ctx, cancel := withDefaultWaitTimeout(ctx)
	defer cancel()
	if err := h.lockForWait(ctx); err != nil {
		return TurnResult{}, err
	}
	defer h.turn.unlock()
	rc, err := h.deliverInTurn(ctx, intent, params)
	if err != nil {
		return TurnResult{Receipt: rc}, err
	}
	if rc.Effect == EffectIgnored || rc.Effect == EffectNotSent {
		return TurnResult{State: h.classifyInTurn(context.WithoutCancel(ctx)), Receipt: rc}, nil
	}
	opts := []WaitOption{}
	if rc.Attempts > 0 {
		opts = append(opts, After(rc.Sequence))
	}
	st, res, err := h.waitInTurn(ctx, waitIntent, waitParams, opts...)
	return TurnResult{State: st, Receipt: rc, Wait: res}, err
}

// Inspection is the view a misclassification report needs.
type Inspection struct {
	State          StateSnapshot `json:"state"`
	PlainText      string        `json:"plain_text"`
	BodyText       string        `json:"body_text"`
	StatusText     string        `json:"status_text"`
	TranscriptTail string        `json:"transcript_tail"`
	Sequence       uint64        `json:"sequence"`
	// Projection is the dialog-oriented rendering of the screen.
	Projection contract.DialogProjection `json:"projection"`
}

// Inspect classifies and returns the texts the classifier saw, redacted with
// r (nil: the handle's redactor, HandleOptions.Redactor; NoRedaction: raw).
func (h *ExtensionHandle) Inspect(ctx context.Context, r *Redactor) (Inspection, error) {
	if err := h.turn.lock(ctx); err != nil {
		return Inspection{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return Inspection{}, ErrSessionClosed
	}
	r = r.or(h.red)
	// Redacted as a screen, then split: a secret that wrapped from the
	// body into the status rows is found whole.
	snap := h.s.Snapshot(SnapshotOptions{Redactor: r})
	body, status := splitBodyStatus(snap)
	proj, _, err := h.projectInTurn(ctx, 0, 0)
	if err != nil {
		return Inspection{}, err
	}
	st, raw := h.classifyNow(ctx)
	q := r.quotingScreen(raw.PlainText, raw.Size.Cols)
	return Inspection{
		State:          st.redacted(q, raw.Size.Cols),
		PlainText:      snap.PlainText,
		BodyText:       body,
		StatusText:     status,
		TranscriptTail: h.s.transcriptTail(r),
		Sequence:       snap.Sequence,
		Projection:     redactProjection(proj, snap.Size.Cols, q),
	}, nil
}

// Close closes the extension and the session. A Send, Wait or Turn in
// progress is not waited for: the session closes first, which ends it with
// ErrSessionClosed, then the extension closes.
func (h *ExtensionHandle) Close() error {
	if !h.turn.tryLock() {
		_ = h.s.Close() // Ends the holder's wait; Close below reports the error, if any.
		_ = h.turn.lock(context.Background())
	}
	defer h.turn.unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.stopPolicy()
	h.stopLifecycle()
	h.stopSDK()
	h.extMu.Lock()
	extErr := h.ext.Close()
	h.extClosed = true
	h.extMu.Unlock()
	sErr := h.s.Close()
	if sErr != nil {
		return sErr
	}
	return extErr
}

func (h *ExtensionHandle) waitInTurn(ctx context.Context, intent string, params json.RawMessage, extra ...WaitOption) (StateSnapshot, *WaitResult, error) {
	if h.closed {
		return StateSnapshot{}, nil, ErrSessionClosed
	}
	if intent == "" {
		intent = defaultWaitIntent
	}
	ctx, cancel := withDefaultWaitTimeout(ctx)
	defer cancel()
	if intent == contract.LifecycleWaitIntent {
		res, err := h.waitLifecycle(ctx, wire.ObjectParams(params))
		if err != nil {
			return StateSnapshot{}, nil, h.explainWaitError(ctx, err)
		}
		return h.classifyInTurn(context.WithoutCancel(ctx)), res, nil
	}
	h.extMu.Lock()
	m, err := h.ext.WaitMatcher(ctx, intent, h.injectStable(wire.ObjectParams(params)))
	h.extMu.Unlock()
	if err != nil {
		return StateSnapshot{}, nil, fmt.Errorf("plugin %s: wait intent %q: %w", h.ext.Manifest().Name, intent, err)
	}
	opts := []WaitOption{WithRedactor(h.red)}
	if h.opts.Predicates != nil {
		opts = append(opts, WithPredicates(h.opts.Predicates))
	}
	res, err := h.s.Wait(ctx, m, append(opts, extra...)...)
	if err != nil {
		return StateSnapshot{}, nil, h.explainWaitError(ctx, err)
	}
	// The wait's context may be at its end; classification gets its own
	// budget from the plugin host.
	return h.classifyInTurn(context.WithoutCancel(ctx)), res, nil
}

// explainWaitError gives a *WaitError the explanation of the last
// classification: why the plugin saw what it saw when the wait gave up.
func (h *ExtensionHandle) explainWaitError(ctx context.Context, err error) error {
	var we *WaitError
	if errors.As(err, &we) && we.Explanation == nil {
		we.Explanation = h.timeoutExplanation(ctx)
	}
	return err
}

// withDefaultWaitTimeout bounds ctx by DefaultAdapterWaitTimeout unless it
// has a deadline already.
func withDefaultWaitTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultAdapterWaitTimeout)
}

// lockForWait takes the turn lock for a wait; a wait that ends while queued
// reports the screen as it is, like a wait that ends while waiting.
func (h *ExtensionHandle) lockForWait(ctx context.Context) error {
	start := time.Now()
	if err := h.turn.lock(ctx); err != nil {
		return h.queuedWaitError(err, start)
	}
	return nil
}

// classifyInTurn classifies the current screen (the caller holds the turn
// lock), redacted: the state as the handle's methods return it.
func (h *ExtensionHandle) classifyInTurn(ctx context.Context) StateSnapshot {
	return h.redactedState(h.classifyNow(ctx))
}

// classifyNow classifies the current screen under extMu and returns the raw
// snapshot it classified.
func (h *ExtensionHandle) classifyNow(ctx context.Context) (StateSnapshot, ScreenSnapshot) {
	st, snap, _ := h.classifyScreen(ctx, false)
	return st, snap
}

// classifyScreen is classifyNow, with the plugin's explanation when explain
// is set. The screen is read, classified and, when the handle tracks a
// lifecycle, fed to the tracker under one hold of extMu: read before it, a
// caller that waited for the lock would classify a screen older than the
// one the holder had just classified, and leave the plugin's memory, the
// held ring, the lifecycle and the state events describing a screen that
// is gone. Every classification is evidence, so the lifecycle attached to
// the state always agrees with it.
func (h *ExtensionHandle) classifyScreen(ctx context.Context, explain bool) (StateSnapshot, ScreenSnapshot, contract.Explanation) {
	h.extMu.Lock()
	snap := h.s.Snapshot(SnapshotOptions{Raw: true})
	shown := h.s.lastVisibleChange()
	cc := h.contextLocked(snap)
	var st StateSnapshot
	var x contract.Explanation
	if explain {
		cc.Explain = true
		st, x = classifyExplained(ctx, h.ext, cc)
	} else {
		st = classify(ctx, h.ext, cc)
	}
	h.held.add(cc, st, snap.Size.Cols)
	x.ScreenCols, x.Screen = snap.Size.Cols, snap.PlainText
	h.noteStateLocked(st)
	h.surface.note(st, shown)
	notify := noop
	if h.lc != nil {
		notify = h.feedLocked(st, snap)
		status := h.lc.status
		st.Lifecycle = &status
	}
	h.extMu.Unlock()
	notify()
	return st, snap, x
}

// contextLocked builds the ClassifyContext for snap from the live session;
// the caller holds extMu (it reads lastIntent).
func (h *ExtensionHandle) contextLocked(snap ScreenSnapshot) ClassifyContext {
	tail, last := h.s.classifyInputs(classifyTranscriptChars)
	cc := newClassifyContext(snap, tail, time.Since(last).Milliseconds(), h.lastIntent, h.opts.CompletedTurnStableMs)
	cc.Session, cc.Adapter = h.opts.Scope.Session, h.opts.Scope.Adapter
	return cc
}

// classifyInputs returns the transcript's last n characters and when the
// visible screen last changed, read together under the session's lock.
func (s *Session) classifyInputs(n int) (tail string, lastChange time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tr.Tail(n), s.visibleChangedLocked()
}

// NewClassifyContext builds what a classifier sees, exactly as a live
// ExtensionHandle with default options builds it: snap's plain text, split
// into body and status bar (the bottom 3 rows, none on a screen of 6 rows or
// fewer), its title, the transcript tail, how long the screen has been
// unchanged, the last intent (nil: none) and completed_turn_stable_ms 300.
// Fixture tests of a classifier use it to see screens as the host does.
func NewClassifyContext(snap ScreenSnapshot, transcript string, stableMs int64, lastIntent *string) ClassifyContext {
	return newClassifyContext(snap, transcript, stableMs, lastIntent, defaultCompletedTurnStableMs)
}

// newClassifyContext builds what a classifier sees from a raw snapshot, the
// transcript tail, how long the screen has been unchanged and the host's
// remembered intent. A live ExtensionHandle and ReplayClassify both build it
// here, so a recorded session classifies exactly as the live one did.
func newClassifyContext(snap ScreenSnapshot, tail string, stableMs int64, lastIntent *string, completedTurnStableMs int64) ClassifyContext {
	body, status := splitBodyStatus(snap)
	var title *string
	if snap.Title != "" {
		title = &snap.Title
	}
	return ClassifyContext{
		Screen:                snap.PlainText,
		BodyText:              body,
		StatusText:            status,
		Transcript:            &tail,
		Sequence:              snap.Sequence,
		LastIntent:            lastIntent,
		Title:                 title,
		StableMs:              &stableMs,
		CompletedTurnStableMs: &completedTurnStableMs,
		BracketedPaste:        &snap.BracketedPaste,
	}
}

// classify runs ext's classifier on cc. A failing plugin yields
// contract.PluginErrorState with the redacted error as evidence, never an error, so
// one bad call cannot break a wait loop or a replay.
func classify(ctx context.Context, ext Extension, cc ClassifyContext) StateSnapshot {
	st, err := ext.Classify(ctx, cc)
	if err == nil && st.Assessment != nil {
		err = st.Assessment.Validate()
	}
	if err != nil {
		st = StateSnapshot{
			State:    contract.PluginErrorState,
			Evidence: DefaultRedactor().Redact(err.Error()),
			Metadata: map[string]any{"plugin": ext.Manifest().Name},
		}
	}
	st.Sequence = cc.Sequence
	if st.LastIntent == nil && cc.LastIntent != nil {
		v := *cc.LastIntent
		st.LastIntent = &v
	}
	return st
}

// injectStable adds completed_turn_stable_ms to object params that lack it,
// so generic callers need not know a plugin's settle threshold.
func (h *ExtensionHandle) injectStable(params json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
		return params
	}
	if _, ok := obj["completed_turn_stable_ms"]; ok {
		return params
	}
	obj["completed_turn_stable_ms"] = json.RawMessage(fmt.Sprint(h.opts.CompletedTurnStableMs))
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

// splitBodyStatus splits a screen into the body and the bottom
// statusBarRows rows. A screen of 6 rows or fewer is all body, so small
// terminals are not misread as all status bar.
func splitBodyStatus(snap ScreenSnapshot) (body, status string) {
	lines := snap.Lines()
	if len(lines) <= 2*statusBarRows {
		return strings.Join(lines, "\n"), ""
	}
	cut := len(lines) - statusBarRows
	return strings.Join(lines[:cut], "\n"), strings.Join(lines[cut:], "\n")
}
