package ptywright

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"ptywright/contract"
	"ptywright/internal/wire"
)

// Defaults of intent delivery (receipts and input readiness).
const (
	// defaultReceiptWindow is how long the handle looks for a plan's
	// expected effect before it calls the intent ignored.
	defaultReceiptWindow = 1500 * time.Millisecond
	// defaultMaxInputHold bounds how long input readiness may hold an
	// intent's keys waiting for the screen to settle.
	defaultMaxInputHold = 3 * time.Second
	// defaultAwaitWindow is how long a plan's Await waits for a screen
	// that takes its keys (Codex's start-up wait lasts about 5 s).
	defaultAwaitWindow = 10 * time.Second
)

// Effect says what became of an intent's input.
type Effect string

// The effects a Receipt reports.
const (
	// EffectConfirmed: the change the plugin expects was seen.
	EffectConfirmed Effect = "confirmed"
	// EffectIgnored: the expected change was not seen within the window,
	// after the one resend a plan may allow. The program most likely
	// dropped the keys.
	EffectIgnored Effect = "ignored"
	// EffectUnverified: the plugin declared no expectation (or the call
	// ended before its window), so nobody can say.
	EffectUnverified Effect = "unverified"
	// EffectNotSent: nothing was written. The plan awaited a screen that
	// takes its keys (ActionPlan.Await) and none came within its window;
	// Reason names the state the screen stayed in.
	EffectNotSent Effect = "not_sent"
)

// Expectation is what a plan expects to see after its actions; any one of
// its conditions confirms the intent. A plan with an Expectation gets a
// Receipt that says confirmed or ignored; one without, unverified.
type Expectation struct {
	// Matcher must match a screen that came after the write, e.g.
	// None(ContainsText("Do you trust")) for a dialog that must go.
	Matcher *Matcher `json:"matcher,omitempty"`
	// States: the classification after the write is one of these.
	States []string `json:"states,omitempty"`
	// Leave: the classification after the write differs from the one
	// before it, in its state or its evidence (a second page of the same
	// state is left when the plugin's evidence names the page), and is not
	// the host's plugin_error.
	Leave bool `json:"leave,omitempty"`
	// Changed: the visible screen (text, cursor, modes) differs from the
	// one the keys were sent to. The weakest expectation: for keys whose
	// only sure effect is some redraw (a toggle, a cursor move).
	Changed bool `json:"changed,omitempty"`
	// WithinMs is the window; 0 means the handle's ReceiptWindow.
	WithinMs int64 `json:"within_ms,omitempty"`
}

// Validate checks that e expects something and that its window is not
// negative; a failure wraps ErrInvalidParams.
func (e *Expectation) Validate() error {
	if e.Matcher == nil && len(e.States) == 0 && !e.Leave && !e.Changed {
		return fmt.Errorf("%w: expect: needs a matcher, states, leave or changed", ErrInvalidParams)
	}
	if e.WithinMs < 0 {
		return fmt.Errorf("%w: expect.within_ms: must not be negative", ErrInvalidParams)
	}
	return nil
}

// Receipt reports what became of one intent: what was written and whether
// the program took it.
type Receipt struct {
	Intent string `json:"intent"`
	Effect Effect `json:"effect"`
	// Bytes counts the bytes written, over every attempt.
	Bytes int `json:"bytes"`
	// Attempts is 1, or 2 when a plan that allows it was resent; 0 when the
	// plan had no actions.
	Attempts int `json:"attempts"`
	// Sequence is the screen's sequence as the first write began: pass it to
	// After (adapter.wait's after_sequence) to see only what followed.
	Sequence uint64 `json:"sequence"`
	// HeldMs is how long the keys were held: for a screen that takes them
	// (a plan's Await) and for the screen to settle (input readiness).
	HeldMs int64 `json:"held_ms"`
	// ElapsedMs runs from the first write to the verdict.
	ElapsedMs int64 `json:"elapsed_ms"`
	// StateBefore is the state the keys were sent to.
	StateBefore string `json:"state_before,omitempty"`
	// ConfirmedState is the state that confirmed a states or leave
	// expectation; Evidence the matcher branch that confirmed a matcher.
	ConfirmedState string        `json:"confirmed_state,omitempty"`
	Evidence       *MatchOutcome `json:"evidence,omitempty"`
	// Reason says why an intent is ignored or unverified.
	Reason string `json:"reason,omitempty"`
}

// SendResult is what ExtensionHandle.Send reports: the state after the
// intent and what became of it (adapter.send's result on the wire).
type SendResult struct {
	State   StateSnapshot `json:"state"`
	Receipt Receipt       `json:"receipt"`
}

// TurnResult is what ExtensionHandle.Turn reports. Wait is nil when the
// send was ignored: the turn does not wait for an answer to keys the
// program dropped.
type TurnResult struct {
	State   StateSnapshot
	Receipt Receipt
	Wait    *WaitResult
}

// deliverInTurn plans intent, holds its keys until the screen is ready for
// them, writes them and checks the plan's expectation, resending once when
// the plan says that is safe. The caller holds the turn lock.
func (h *ExtensionHandle) deliverInTurn(ctx context.Context, intent string, params []byte) (Receipt, error) {
	if h.closed {
		return Receipt{Intent: intent}, ErrSessionClosed
	}
	return h.deliver(ctx, intent, params)
}

// deliver is deliverInTurn without the turn lock: it holds sendMu, which
// orders the handle's deliveries (a caller's, under the turn lock, and a
// policy's, which must answer a dialog while a caller's wait holds it).
func (h *ExtensionHandle) deliver(ctx context.Context, intent string, params []byte) (Receipt, error) {
	h.sendMu.Lock()
	defer h.sendMu.Unlock()
	rc := Receipt{Intent: intent}
	if intent == "" {
		return rc, fmt.Errorf("%w: intent: required", ErrInvalidParams)
	}
	if err := h.refuseHeld(&rc); err != nil {
		return rc, err
	}
	// The plugin plans on what it last classified: make that the screen
	// as it is now, so a plan (or a refusal) never rests on an old one.
	planned, _ := h.classifyNow(ctx)
	plan, err := h.planInTurn(ctx, intent, params)
	if err != nil {
		return rc, err
	}
	// The keys go only to a screen the plan awaits: await it, plan again
	// on it, hold the keys until it settles, and when the hold ends on a
	// screen that moved on (a program that draws its prompt, then
	// restarts), do it again, within one await window and a bounded number
	// of times.
	var awaitEnd time.Time
	var before StateSnapshot
	var beforeSnap ScreenSnapshot
	for tries := 0; ; tries++ {
		if plan.Await != nil && len(plan.Actions) > 0 && !slices.Contains(plan.Await.States, planned.State) {
			if tries > maxReawaits {
				rc.Effect, rc.Reason = EffectNotSent, fmt.Sprintf("the screen left %s while the keys waited for it to settle, %d times (now %s: %s)",
					strings.Join(plan.Await.States, " or "), maxReawaits, planned.State, planned.Evidence)
				return rc, nil
			}
			if awaitEnd.IsZero() {
				awaitEnd = time.Now().Add(awaitWindow(plan.Await))
			}
			took, err := h.awaitInput(ctx, plan.Await, awaitEnd, &rc)
			if err != nil || !took {
				return rc, err
			}
			// The screen moved on since the plan was made: plan again on
			// the one that takes the keys (the plugin's memory is fresh).
			if plan, err = h.planInTurn(ctx, intent, params); err != nil {
				return rc, err
			}
		}
		if len(plan.Actions) == 0 {
			h.rememberIntent(plan.LastIntent)
			rc.Effect, rc.Reason = EffectUnverified, "the plan has no actions"
			return rc, nil
		}
		if before, beforeSnap, err = h.holdForReadiness(ctx, &rc); err != nil {
			return rc, err
		}
		if plan.Await == nil || slices.Contains(plan.Await.States, before.State) {
			break
		}
		planned = before
	}
	// A person may have taken the terminal while the keys were held.
	if err := h.refuseHeld(&rc); err != nil {
		return rc, err
	}
	// The state the keys go to is the dialog they answer: the one the
	// caller saw, and the one the plan was made on, with the option the
	// keys choose where the plan says.
	if err := checkAnswer(plan.Answer, params, before, func() StateSnapshot { return h.redactedState(before, beforeSnap) }); err != nil {
		// The reason quotes labels and ids off the screen: redacted like
		// the state.
		var dm *DialogMismatchError
		if errors.As(err, &dm) {
			dm.Reason = h.red.quotingScreen(beforeSnap.PlainText, beforeSnap.Size.Cols).Redact(dm.Reason)
		}
		rc.Effect, rc.Reason = EffectNotSent, "the dialog on screen is not the one answered: "+dm.Reason
		h.auditAnswer(ctx, intent, plan, before, beforeSnap, rc)
		return rc, err
	}
	rc.StateBefore = before.State
	submits := plan.LastIntent != nil && *plan.LastIntent == promptSubmittedIntent
	if submits {
		// Anchor the turn at the screen as it is before the keystrokes; it
		// starts only once the receipt says the program took them.
		h.submitTurn()
	}
	rc, err = h.sendAndCheck(ctx, intent, plan, before, rc)
	h.auditAnswer(ctx, intent, plan, before, beforeSnap, rc)
	if submits {
		h.settleTurn(err == nil && rc.Effect != EffectIgnored)
	}
	return rc, err
}

// maxReawaits bounds how often a delivery awaits its screen again after
// the readiness hold ended on another: a screen that keeps flipping gets
// not_sent rather than keys at a moment that happened to fit.
const maxReawaits = 3

// planInTurn asks the plugin for intent's plan and checks its
// expectation.
func (h *ExtensionHandle) planInTurn(ctx context.Context, intent string, params []byte) (ActionPlan, error) {
	name := h.ext.Manifest().Name
	h.extMu.Lock()
	plan, err := h.ext.Plan(ctx, intent, wire.ObjectParams(params))
	h.extMu.Unlock()
	if err != nil {
		return plan, fmt.Errorf("plugin %s: intent %q: %w", name, intent, err)
	}
	if plan.Expect != nil {
		if err := plan.Expect.Validate(); err != nil {
			return plan, fmt.Errorf("plugin %s: intent %q: %w", name, intent, err)
		}
	}
	return plan, nil
}

// awaitWindow is how long a's states are awaited, over every await of
// one delivery.
func awaitWindow(a *InputAwait) time.Duration {
	if a.WithinMs > 0 {
		return time.Duration(a.WithinMs) * time.Millisecond
	}
	return defaultAwaitWindow
}

// awaitInput classifies every screen change until the state is one of
// a's, and reports whether it came before end (the end of a's window).
// When it did not, rc says not_sent and names the state the screen stayed
// in.
func (h *ExtensionHandle) awaitInput(ctx context.Context, a *InputAwait, end time.Time, rc *Receipt) (took bool, err error) {
	window := awaitWindow(a)
	start := time.Now()
	defer func() { rc.HeldMs += time.Since(start).Milliseconds() }()
	deadline := time.NewTimer(time.Until(end))
	defer deadline.Stop()
	for {
		_, changed := h.s.Changed()
		st, snap := h.classifyNow(ctx)
		if slices.Contains(a.States, st.State) {
			return true, nil
		}
		if isDone(h.s.exited) {
			// No screen will come: the output is all read.
			rc.Effect, rc.Reason = EffectNotSent, fmt.Sprintf("the program exited while the keys waited for %s (last state %s: %s)",
				strings.Join(a.States, " or "), st.State, h.redactedState(st, snap).Evidence)
			return false, nil
		}
		select {
		case <-changed:
		case <-h.s.exited:
		case <-deadline.C:
			rc.Effect, rc.Reason = EffectNotSent, fmt.Sprintf("the screen did not show %s within %d ms; it stayed %s (%s), so nothing was written",
				strings.Join(a.States, " or "), window.Milliseconds(), st.State, h.redactedState(st, snap).Evidence)
			return false, nil
		case <-ctx.Done():
			return false, fmt.Errorf("waiting for a screen that takes intent %q (%s): %w", rc.Intent, strings.Join(a.States, " or "), cancelErr(ctx.Err()))
		}
	}
}

// sendAndCheck writes plan's keys and checks its expectation, resending
// once when the plan says that is safe.
func (h *ExtensionHandle) sendAndCheck(ctx context.Context, intent string, plan ActionPlan, before StateSnapshot, rc Receipt) (Receipt, error) {
	start := time.Now()
	var screenBefore uint64
	if plan.Expect != nil && plan.Expect.Changed {
		screenBefore = h.s.screen.visibleKey()
	}
	if err := h.applyInTurn(ctx, intent, plan, &rc); err != nil {
		return rc, err
	}
	prevIntent := h.rememberIntent(plan.LastIntent)
	if plan.Expect == nil {
		rc.Effect, rc.Reason = EffectUnverified, "the plugin declared no expectation for this intent"
		rc.ElapsedMs = time.Since(start).Milliseconds()
		return rc, nil
	}
	seen, reason, err := h.expectInTurn(ctx, plan.Expect, before, screenBefore, &rc)
	if err != nil {
		return rc, err
	}
	if !seen && (plan.Resend || len(plan.Retry) > 0) && reason == "" {
		if _, _, err := h.holdForReadiness(ctx, &rc); err != nil {
			return rc, err
		}
		again := plan
		if len(plan.Retry) > 0 {
			again.Actions = plan.Retry
		}
		if err := h.applyInTurn(ctx, intent, again, &rc); err != nil {
			return rc, err
		}
		seen, reason, err = h.expectInTurn(ctx, plan.Expect, before, screenBefore, &rc)
		if err != nil {
			return rc, err
		}
	}
	rc.ElapsedMs = time.Since(start).Milliseconds()
	switch {
	case seen:
		rc.Effect = EffectConfirmed
	case reason != "":
		rc.Effect, rc.Reason = EffectUnverified, reason
	default:
		// The program dropped the keys: the intent it did not take must
		// not colour the next classification (a prompt_submitted that
		// never submitted would read a stale answer as a running turn).
		h.restoreIntent(plan.LastIntent, prevIntent)
		rc.Effect = EffectIgnored
		rc.Reason = fmt.Sprintf("the expected change was not seen within %d ms", h.window(plan.Expect).Milliseconds())
		if rc.Attempts > 1 {
			rc.Reason += " of either attempt"
		}
	}
	return rc, nil
}

// applyInTurn writes the plan's actions once.
func (h *ExtensionHandle) applyInTurn(ctx context.Context, intent string, plan ActionPlan, rc *Receipt) error {
	rc.Attempts++
	for i, a := range plan.Actions {
		w, err := h.s.Perform(ctx, a)
		if rc.Attempts == 1 && i == 0 {
			rc.Sequence = w.Sequence
		}
		rc.Bytes += w.Bytes
		if err != nil {
			return fmt.Errorf("plugin %s: intent %q: action %d (%s): %w", h.ext.Manifest().Name, intent, i, a.Type, err)
		}
	}
	return nil
}

// rememberIntent applies a plan's last_intent: absent keeps it, "" clears
// it. It returns the intent it replaced.
func (h *ExtensionHandle) rememberIntent(li *string) (prev *string) {
	h.extMu.Lock()
	defer h.extMu.Unlock()
	prev = h.lastIntent
	if li == nil {
		return prev
	}
	if *li == "" {
		h.lastIntent = nil
		return prev
	}
	v := *li
	h.lastIntent = &v
	return prev
}

// restoreIntent undoes rememberIntent(li) that replaced prev, unless a
// later plan has recorded another intent meanwhile.
func (h *ExtensionHandle) restoreIntent(li, prev *string) {
	if li == nil {
		return
	}
	h.extMu.Lock()
	defer h.extMu.Unlock()
	now := ""
	if h.lastIntent != nil {
		now = *h.lastIntent
	}
	if now == *li {
		h.lastIntent = prev
	}
}

// surface is what the handle's last classification showed (its state and
// evidence) and when that was first drawn, as near as the handle can tell:
// the visible change the first classification of it followed. Guarded by
// extMu.
type surface struct {
	state, evidence string
	since           time.Time
}

// note records a classification made of a screen last changed at shown.
func (f *surface) note(st StateSnapshot, shown time.Time) {
	if st.State == f.state && st.Evidence == f.evidence {
		return
	}
	f.state, f.evidence, f.since = st.State, st.Evidence, shown
}

// holdForReadiness classifies the screen and, when its state asks for it
// (StateSnapshot.InputSettleMs, N below), holds the keys until the program
// takes them. Programs refuse keys for a while after they draw a dialog
// (Claude Code 2.1.330: 150 ms after the dialog's paint, restarted when it
// draws the dialog anew, and by every refused key), and nothing in their
// output says when that ends. So the keys wait for two clocks: N after the
// state's first frame, and N after the last visible change. The first
// alone misses a dialog drawn anew under the same state; the second alone
// never ends on a dialog that keeps blinking, unless N is shorter than the
// blink (Claude's permission dialog blinks every ~600 ms). A state first
// seen by this call counts from the last visible change, never earlier than
// its first frame. The hold ends after MaxInputHold whatever happens, and
// the keys go (the receipt then tells whether they were taken). It returns
// the state the keys go to; an error only when ctx ends first, with
// nothing written.
func (h *ExtensionHandle) holdForReadiness(ctx context.Context, rc *Receipt) (StateSnapshot, ScreenSnapshot, error) {
	start := time.Now()
	defer func() { rc.HeldMs += time.Since(start).Milliseconds() }()
	limit := h.opts.MaxInputHold
	if limit <= 0 {
		limit = defaultMaxInputHold
	}
	st, snap := h.classifyNow(ctx)
	for {
		settle := time.Duration(st.InputSettleMs) * time.Millisecond
		if settle <= 0 {
			return st, snap, nil
		}
		h.extMu.Lock()
		since := h.surface.since
		h.extMu.Unlock()
		readyAt := since.Add(settle)
		if quiet := h.s.lastVisibleChange().Add(settle); quiet.After(readyAt) {
			readyAt = quiet
		}
		hold := min(time.Until(readyAt), limit-time.Since(start))
		if hold <= 0 {
			return st, snap, nil
		}
		// A new frame may be a new state (or a new frame of this one) with
		// a settle of its own: look again at each change, not only when the
		// hold ends.
		_, changed := h.s.Changed()
		t := time.NewTimer(hold)
		select {
		case <-t.C:
		case <-changed:
		case <-ctx.Done():
			t.Stop()
			return st, snap, fmt.Errorf("holding intent %q for %s to take keys: %w", rc.Intent, st.State, cancelErr(ctx.Err()))
		}
		t.Stop()
		st, snap = h.classifyNow(ctx) // Then check both clocks again, for this state or the next.
	}
}

// window is how long an expectation is looked for.
func (h *ExtensionHandle) window(e *Expectation) time.Duration {
	if e.WithinMs > 0 {
		return time.Duration(e.WithinMs) * time.Millisecond
	}
	if h.opts.ReceiptWindow > 0 {
		return h.opts.ReceiptWindow
	}
	return defaultReceiptWindow
}

// expectInTurn looks for e on every screen after rc.Sequence (the first
// write) until the window ends. reason is set when the answer cannot be
// known: the program exited, the session closed or the caller gave up.
func (h *ExtensionHandle) expectInTurn(ctx context.Context, e *Expectation, before StateSnapshot, screenBefore uint64, rc *Receipt) (seen bool, reason string, err error) {
	var cm *compiled
	if e.Matcher != nil {
		if cm, err = compileMatcher(*e.Matcher, "expect.matcher"); err != nil {
			return false, "", fmt.Errorf("plugin %s: intent %q: %w", h.ext.Manifest().Name, rc.Intent, err)
		}
		if cm.has(MatchLua) && h.opts.Predicates == nil {
			return false, "", fmt.Errorf("plugin %s: intent %q: %w: expect has a lua branch but no plugin registry is bound", h.ext.Manifest().Name, rc.Intent, ErrInvalidMatcher)
		}
	}
	deadline := time.NewTimer(h.window(e))
	defer deadline.Stop()
	var wakeT *time.Timer
	defer func() {
		if wakeT != nil {
			wakeT.Stop()
		}
	}()
	for {
		o := h.s.observe(observeNext | observeVisible)
		seq, changed, last := o.seq, o.next, o.lastVisible
		if o.closed {
			return false, "the session closed before the effect was seen", nil
		}
		var wake time.Time
		exited := isDone(h.s.exited)
		if seq > rc.Sequence || exited {
			if cm != nil {
				st := &evalState{ctx: ctx, s: h.s, reg: h.opts.Predicates, now: time.Now(), lastChange: last, exited: exited}
				out, w, err := cm.eval(st)
				if err != nil {
					return false, "", err
				}
				if out != nil {
					// A capture may span the rows of a secret the screen
					// wrapped: hide each row's piece, as a wait does.
					snap := st.snapshot()
					rc.Evidence = out.redacted(h.red.quotingScreen(snap.PlainText, snap.Size.Cols))
					return true, "", nil
				}
				wake = w
			}
			if e.Changed && h.s.screen.visibleKey() != screenBefore {
				return true, "", nil
			}
			if len(e.States) > 0 || e.Leave {
				now, _ := h.classifyNow(context.WithoutCancel(ctx))
				left := now.State != before.State || now.Evidence != before.Evidence
				if slices.Contains(e.States, now.State) || (e.Leave && left && now.State != contract.PluginErrorState) {
					rc.ConfirmedState = now.State
					return true, "", nil
				}
			}
		}
		if exited {
			return false, "the program exited before the effect was seen", nil
		}
		var wakeC <-chan time.Time
		if !wake.IsZero() {
			if wakeT == nil {
				wakeT = time.NewTimer(time.Until(wake))
			} else {
				wakeT.Reset(time.Until(wake))
			}
			wakeC = wakeT.C
		}
		select {
		case <-changed:
		case <-wakeC:
		case <-deadline.C:
			return false, "", nil
		case <-ctx.Done():
			return false, "the call ended before the effect was seen", nil
		}
	}
}
