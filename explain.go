package ptywright

import (
	"context"
	"errors"
	"fmt"

	"ptywright/contract"
)

// Explainer is implemented by extensions that can account for a
// classification (a Lua extension does: package luahost).
// ClassifyExplained classifies like Classify with cc.Explain set and
// returns the explanation too.
type Explainer interface {
	ClassifyExplained(ctx context.Context, cc ClassifyContext) (StateSnapshot, contract.Explanation, error)
}

// explanationOf fills what a snapshot says about itself; the plugin's rule,
// region and considered come on top.
func explanationOf(st StateSnapshot) contract.Explanation {
	x := contract.Explanation{State: st.State, Confidence: st.Confidence, Sequence: st.Sequence, Evidence: st.Evidence}
	if a := st.Assessment; a != nil {
		x.Anomalies = a.Anomalies
		if pm := a.ParserMetadata; pm != nil {
			x.Parser = pm
			x.ParserVersion = pm.ParserPresetVersion
		}
	}
	return x
}

// ExplainOption adjusts one Explain call.
type ExplainOption func(*explainConfig)

type explainConfig struct {
	at       uint64
	hasAt    bool
	last     bool
	redactor *Redactor
}

// ExplainAt asks Explain for the classification the handle made at screen
// sequence seq (StateSnapshot.Sequence) instead of a new one: the newest
// held classification of a screen at or before seq. The handle holds its
// last 8 classifications; an older (or a later, not yet classified)
// sequence is a *NotHeldError.
func ExplainAt(seq uint64) ExplainOption {
	return func(c *explainConfig) { c.at, c.hasAt = seq, true }
}

// ExplainLast asks Explain for the handle's last classification, whoever
// made it (a State, a Send's, the lifecycle's), instead of a new one: like
// ExplainAt, it does not queue. A handle that has classified nothing yet
// answers a *NotHeldError.
func ExplainLast() ExplainOption {
	return func(c *explainConfig) { c.last = true }
}

// ExplainRedactor redacts the explanation with r instead of the handle's
// redactor (HandleOptions.Redactor). NoRedaction() returns its texts raw,
// and the classified screen in Explanation.Screen; nil means the handle's.
func ExplainRedactor(r *Redactor) ExplainOption {
	return func(c *explainConfig) { c.redactor = r }
}

// heldClassifications is how many of its latest classifications an
// ExtensionHandle keeps explainable (ExplainAt, wait timeouts). It keeps
// what the classifier saw, not an explanation: the explanation is built
// only when asked, by classifying that context again with ctx.explain set.
const heldClassifications = 8

// NotHeldError says which sequences the handle still holds.
type NotHeldError struct {
	// Sequence is the sequence asked for.
	Sequence uint64
	// Oldest and Newest are the sequences of the oldest and newest held
	// classification; Held is how many are held (0: nothing classified
	// yet, and Oldest and Newest are 0), at most Capacity, the handle's
	// ring size (8).
	Oldest, Newest uint64
	Held, Capacity int
}

// Error says which sequences are held.
func (e *NotHeldError) Error() string {
	if e.Held == 0 {
		return fmt.Sprintf("classification at sequence %d is not held: nothing has been classified yet", e.Sequence)
	}
	if e.Sequence > e.Newest {
		return fmt.Sprintf("classification at sequence %d is not held: the newest classification is at sequence %d (held: %d to %d)", e.Sequence, e.Newest, e.Oldest, e.Newest)
	}
	return fmt.Sprintf("classification at sequence %d is no longer held: the oldest held is at sequence %d (held: %d to %d)", e.Sequence, e.Oldest, e.Oldest, e.Newest)
}

// Unwrap lets errors.Is match ErrNotHeld.
func (e *NotHeldError) Unwrap() error { return ErrNotHeld }

// heldClassification is what a classification needs to be explained later:
// the context the classifier saw and its verdict. Both were built for the
// classification anyway, so holding them allocates nothing.
type heldClassification struct {
	cc   ClassifyContext
	st   StateSnapshot
	cols int // the screen's width
}

// heldRing holds the last heldClassifications classifications, guarded by
// the handle's extMu. A fixed array: recording one is a copy, no
// allocation.
type heldRing struct {
	buf  [heldClassifications]heldClassification
	next int // where the next one goes
	n    int // how many are held
}

func (r *heldRing) add(cc ClassifyContext, st StateSnapshot, cols int) {
	cc.Explain = false
	r.buf[r.next] = heldClassification{cc: cc, st: st, cols: cols}
	r.next = (r.next + 1) % len(r.buf)
	if r.n < len(r.buf) {
		r.n++
	}
}

// get returns the i-th held classification, 0 the oldest.
func (r *heldRing) get(i int) *heldClassification {
	return &r.buf[(r.next-r.n+i+2*len(r.buf))%len(r.buf)]
}

func (r *heldRing) newest() (*heldClassification, bool) {
	if r.n == 0 {
		return nil, false
	}
	return r.get(r.n - 1), true
}

// at finds the held classification of the latest screen at or before seq
// (of two of the same screen, the later one). Classifications are recorded
// in the order they finish, which two classifiers racing (the lifecycle's
// and a caller's) may swap, so it looks at them all.
func (r *heldRing) at(seq uint64) (*heldClassification, error) {
	if r.n == 0 {
		return nil, &NotHeldError{Sequence: seq, Capacity: heldClassifications}
	}
	var best *heldClassification
	oldest, newest := r.get(0).st.Sequence, r.get(0).st.Sequence
	for i := 0; i < r.n; i++ {
		e := r.get(i)
		oldest, newest = min(oldest, e.st.Sequence), max(newest, e.st.Sequence)
		if e.st.Sequence <= seq && (best == nil || e.st.Sequence >= best.st.Sequence) {
			best = e
		}
	}
	if best == nil || seq > newest {
		return nil, &NotHeldError{Sequence: seq, Oldest: oldest, Newest: newest, Held: r.n, Capacity: heldClassifications}
	}
	return best, nil
}

// Explain accounts for a classification: the rule that fired, the rows it
// matched, the evidence, what the plugin considered and rejected, the
// parser version and anomalies.
//
// Without options it classifies the current screen: a classification like
// State (it reports a state change, feeds the lifecycle), and it queues
// like every handle method. With ExplainAt(seq) it explains the
// classification the handle made at that sequence, if it still holds it
// (else a *NotHeldError), with ExplainLast the newest it holds: these do
// not queue behind a running Send, Wait or
// Turn, so a caller can ask why a wait has not ended while it runs, and it
// is not a new classification (no state change, no lifecycle evidence).
// The explanation is built then, by running the plugin's classify again on
// the held context with ctx.explain set (a classify should read only the
// screen and its own memory: whatever else it does, it does again).
//
// The texts are redacted with the handle's redactor, or with
// ExplainRedactor's (NoRedaction: raw). An extension that is not an
// Explainer gets the explanation its snapshot allows (no rule, nothing
// considered).
func (h *ExtensionHandle) Explain(ctx context.Context, opts ...ExplainOption) (contract.Explanation, error) {
	var c explainConfig
	for _, o := range opts {
		o(&c)
	}
	x, err := h.explain(ctx, &c)
	if err != nil {
		return contract.Explanation{}, err
	}
	return redactExplanation(x, c.redactor.or(h.red)), nil
}

// explain is Explain, unredacted.
func (h *ExtensionHandle) explain(ctx context.Context, c *explainConfig) (contract.Explanation, error) {
	if c.hasAt {
		return h.explainHeld(ctx, &c.at)
	}
	if c.last {
		return h.explainHeld(ctx, nil)
	}
	if err := h.turn.lock(ctx); err != nil {
		return contract.Explanation{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return contract.Explanation{}, ErrSessionClosed
	}
	return h.explainInTurn(ctx), nil
}

// explainInTurn is classifyInTurn with an explanation.
func (h *ExtensionHandle) explainInTurn(ctx context.Context) contract.Explanation {
	_, _, x := h.classifyScreen(ctx, true)
	return x
}

// explainHeld explains the held classification at *seq, or the newest
// one when seq is nil. It needs extMu only, not the turn lock.
func (h *ExtensionHandle) explainHeld(ctx context.Context, seq *uint64) (contract.Explanation, error) {
	h.extMu.Lock()
	defer h.extMu.Unlock()
	if h.extClosed {
		return contract.Explanation{}, ErrSessionClosed
	}
	newest, ok := h.held.newest()
	e := newest
	if seq != nil {
		var err error
		if e, err = h.held.at(*seq); err != nil {
			return contract.Explanation{}, err
		}
	} else if !ok {
		return contract.Explanation{}, &NotHeldError{Capacity: heldClassifications}
	}
	return h.explainHeldLocked(ctx, e, newest), nil
}

// explainHeldLocked builds the explanation of a held classification by
// classifying its context again with an explanation asked for. The verdict
// reported is the held one; the rule, region and considered come from the
// second pass when it reached the same state (a plugin's memory may have
// moved on, e.g. a remembered menu), and an anomaly says so when it did
// not. A second pass over an older context is followed by a plain one over
// the newest, so the plugin's memory is left as the newest classification
// left it. The caller holds extMu.
func (h *ExtensionHandle) explainHeldLocked(ctx context.Context, e, newest *heldClassification) contract.Explanation {
	cc := e.cc
	cc.Explain = true
	again, x := classifyExplained(ctx, h.ext, cc)
	if e != newest {
		_ = classify(ctx, h.ext, newest.cc)
	}
	out := explanationOf(e.st)
	out.ScreenCols, out.Screen = e.cols, e.cc.Screen
	if again.State == e.st.State {
		out.Rule, out.Region, out.Considered = x.Rule, x.Region, x.Considered
	} else {
		out.Anomalies = append(append([]contract.Anomaly(nil), out.Anomalies...), contract.Anomaly{
			Code: "explanation_unavailable",
			Message: fmt.Sprintf("classifying sequence %d again for its explanation gave %s (rule %q), not %s: the plugin's memory has moved on since",
				e.st.Sequence, again.State, x.Rule, e.st.State),
		})
	}
	return out
}

// timeoutExplanation is the explanation a wait that gave up carries: the
// last classification's (the one the wait last evaluated, whoever made
// it), redacted with the handle's redactor. Only when the handle has
// classified nothing yet does it classify the screen now. nil when the
// handle is closed.
func (h *ExtensionHandle) timeoutExplanation(ctx context.Context) *contract.Explanation {
	ctx = context.WithoutCancel(ctx)
	x, err := h.explainHeld(ctx, nil)
	if errors.Is(err, ErrNotHeld) {
		h.classifyNow(ctx)
		x, err = h.explainHeld(ctx, nil)
	}
	if err != nil {
		return nil
	}
	x = redactExplanation(x, h.red)
	return &x
}

// classifyExplained is classify through an Explainer, when ext is one.
func classifyExplained(ctx context.Context, ext Extension, cc ClassifyContext) (StateSnapshot, contract.Explanation) {
	e, ok := ext.(Explainer)
	if !ok {
		st := classify(ctx, ext, cc)
		return st, explanationOf(st)
	}
	var x contract.Explanation
	st := classify(ctx, explainedExt{Extension: ext, e: e, x: &x}, cc)
	if st.State == contract.PluginErrorState {
		x = contract.Explanation{}
	}
	full := explanationOf(st)
	full.Rule, full.Region, full.Considered = x.Rule, x.Region, x.Considered
	return st, full
}

// explainedExt routes classify's Classify through ClassifyExplained,
// keeping the explanation, so classify's error handling applies to both.
type explainedExt struct {
	Extension
	e Explainer
	x *contract.Explanation
}

func (w explainedExt) Classify(ctx context.Context, cc ClassifyContext) (StateSnapshot, error) {
	st, x, err := w.e.ClassifyExplained(ctx, cc)
	*w.x = x
	return st, err
}
