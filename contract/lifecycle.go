package contract

import "time"

// LifecycleState is where a prompt's turn stands, one layer above the
// one-snapshot assessment.
type LifecycleState string

// The lifecycle states.
const (
	// LifecycleWaiting: no turn in flight (nothing submitted yet, or the
	// last turn completed and nothing new was submitted).
	LifecycleWaiting LifecycleState = "waiting"
	// LifecycleInProgress: a submitted turn shows post-submit evidence.
	LifecycleInProgress LifecycleState = "in_progress"
	// LifecycleCandidateComplete: the surface is submit-ready again; it
	// becomes completed if nothing changes for the completion window.
	LifecycleCandidateComplete LifecycleState = "candidate_complete"
	// LifecycleCompleted: submit-ready and unchanged for the window.
	LifecycleCompleted LifecycleState = "completed"
	// LifecycleStalled: the surface has been unreadable for too long.
	LifecycleStalled LifecycleState = "stalled"
)

// LifecycleWaitIntent is the wait intent the host handles itself, for any
// adapter that tracks a lifecycle: it waits for a lifecycle state, params
// {"state": "completed"} by default.
const LifecycleWaitIntent = "wait_lifecycle"

// PluginErrorState is the state the host reports when a plugin's
// classifier call fails (a Lua error, a budget, a bad assessment); plugins
// never emit it themselves.
const PluginErrorState = "plugin_error"

// Defaults of the lifecycle tracker: how long a candidate must hold still
// to be completed, and how long the surface may be unreadable before the
// turn is stalled.
const (
	DefaultCompletionStability = time.Second
	DefaultStallAfter          = 30 * time.Second
)

// LifecycleOptions tune a LifecycleTracker; zero values mean the defaults.
type LifecycleOptions struct {
	CompletionStability time.Duration
	StallAfter          time.Duration
}

// Observation is one classified look at the surface.
type Observation struct {
	Time       time.Time
	Assessment SurfaceAssessment
	// NormalizedText is the projection's normalized text, the lifecycle's
	// evidence for change.
	NormalizedText string
}

// LifecycleStatus is the tracker's report.
type LifecycleStatus struct {
	State LifecycleState `json:"state"`
	// Since is when the tracker entered State.
	Since time.Time `json:"since"`
	// SubmitReady derives from the latest assessment.
	SubmitReady bool `json:"submit_ready"`
	// TurnID counts submissions; 0 before the first.
	TurnID int `json:"turn_id"`
	// Anomalies are the lifecycle's own (stalled_entered, stalled_recovered)
	// from the latest transition.
	Anomalies []Anomaly `json:"anomalies,omitempty"`
}

// LifecycleTracker reduces a stream of observations to a turn lifecycle:
// a submission anchors a turn; working or changed text makes it in
// progress; submit-ready makes it a candidate; a candidate unchanged for the
// completion window is completed, and any change retracts a candidate; a
// completed turn holds until the surface stops being submit-ready (the tool
// went back to work) or a new prompt is submitted; an unknown
// surface for longer than the stall window is stalled until it recovers.
//
// It is a pure state machine driven by the caller's clock (Observe and
// Tick), so it can be replayed over recorded sequences. Not safe for
// concurrent use.
type LifecycleTracker struct {
	opts LifecycleOptions

	state    LifecycleState
	since    time.Time
	turn     int
	baseline string // normalized text when the turn was submitted
	evidence bool   // post-submit evidence seen for this turn
	// pending: a submission's keys are out and the program has not yet
	// been seen to take them (Submit without Confirm or Withdraw). The
	// status stays where it was meanwhile: a prompt the program drops
	// never starts, advances or completes a turn.
	pending  bool
	proposed string // the baseline a pending submission anchors

	last      *Observation
	candidate time.Time // when the current candidate started
	unknownAt time.Time // when the surface became unknown (zero: known)
	resume    LifecycleState
	anomalies []Anomaly
}

// NewLifecycleTracker returns a tracker in the waiting state.
func NewLifecycleTracker(opts LifecycleOptions, now time.Time) *LifecycleTracker {
	if opts.CompletionStability <= 0 {
		opts.CompletionStability = DefaultCompletionStability
	}
	if opts.StallAfter <= 0 {
		opts.StallAfter = DefaultStallAfter
	}
	return &LifecycleTracker{opts: opts, state: LifecycleWaiting, since: now}
}

// Submit proposes a new turn anchored at the current surface. Nothing is
// reported yet: the turn starts at Confirm (the program took the prompt,
// or nobody can tell) and Withdraw drops it (the program ignored it).
// Until one of them, observations move no turn. A second Submit replaces
// a pending one.
func (t *LifecycleTracker) Submit(now time.Time) LifecycleStatus {
	t.pending = true
	t.proposed = ""
	if t.last != nil {
		t.proposed = t.last.NormalizedText
	}
	return t.Status()
}

// Confirm starts the pending turn at now: turn_id advances and the turn
// waits for post-submit evidence, which the latest observation may
// already hold (the program can answer before its receipt is in).
// Without a pending submission it does nothing.
func (t *LifecycleTracker) Confirm(now time.Time) LifecycleStatus {
	if !t.pending {
		return t.Status()
	}
	t.pending = false
	t.anomalies = nil
	t.turn++
	t.evidence = false
	t.baseline = t.proposed
	t.candidate = time.Time{}
	// A submission is not yet evidence: the turn stays anchored in waiting
	// until the surface reacts.
	t.state, t.since = LifecycleWaiting, now
	if t.last != nil {
		t.advance(*t.last, false, now)
	}
	return t.Status()
}

// Withdraw drops the pending submission: the program did not take the
// prompt, so the lifecycle stays as it was before Submit.
func (t *LifecycleTracker) Withdraw() LifecycleStatus {
	t.pending = false
	t.proposed = ""
	return t.Status()
}

// Observe feeds one observation and returns the new status.
func (t *LifecycleTracker) Observe(o Observation) LifecycleStatus {
	prev := t.last
	t.last = &o
	t.anomalies = nil
	changed := prev == nil || prev.NormalizedText != o.NormalizedText || prev.Assessment.BusinessState != o.Assessment.BusinessState ||
		prev.Assessment.InputMode != o.Assessment.InputMode || prev.Assessment.Availability != o.Assessment.Availability

	unknown := o.Assessment.Availability == AvailabilityUnknown || o.Assessment.BusinessState == BusinessUnknown
	if !unknown {
		t.unknownAt = time.Time{}
		if t.state == LifecycleStalled {
			t.anomalies = []Anomaly{{Code: AnomalyStalledRecovered, Message: "surface readable again"}}
			t.set(t.resume, o.Time)
		}
	} else if t.unknownAt.IsZero() {
		t.unknownAt = o.Time
	}

	if !t.pending {
		t.advance(o, changed, o.Time)
	}
	t.tick(o.Time)
	return t.Status()
}

// advance moves the current turn on what o shows: post-submit evidence
// (working, or text unlike the baseline), then candidate, retraction.
func (t *LifecycleTracker) advance(o Observation, changed bool, now time.Time) {
	if t.turn > 0 && !t.evidence {
		if o.Assessment.BusinessState == BusinessWorking || o.NormalizedText != t.baseline {
			t.evidence = true
			if t.state == LifecycleWaiting {
				t.set(LifecycleInProgress, now)
			}
		}
	}
	if t.turn > 0 && t.evidence && t.state != LifecycleStalled {
		ready := o.Assessment.SubmitReady()
		switch {
		case ready && (t.state == LifecycleInProgress || (t.state == LifecycleCandidateComplete && changed)):
			t.candidate = now
			t.set(LifecycleCandidateComplete, now)
		case !ready && (t.state == LifecycleCandidateComplete || t.state == LifecycleCompleted):
			// Retraction: the surface moved on after looking done.
			t.candidate = time.Time{}
			t.set(LifecycleInProgress, now)
		}
	}
}

// Tick applies the time-based transitions at now.
func (t *LifecycleTracker) Tick(now time.Time) LifecycleStatus {
	t.anomalies = nil
	t.tick(now)
	return t.Status()
}

func (t *LifecycleTracker) tick(now time.Time) {
	if t.state == LifecycleCandidateComplete && !t.candidate.IsZero() && now.Sub(t.candidate) >= t.opts.CompletionStability {
		t.set(LifecycleCompleted, t.candidate.Add(t.opts.CompletionStability))
	}
	if t.state != LifecycleStalled && !t.unknownAt.IsZero() && now.Sub(t.unknownAt) >= t.opts.StallAfter {
		t.resume = t.state
		t.anomalies = append(t.anomalies, Anomaly{Code: AnomalyStalledEntered, Message: "surface unknown for " + t.opts.StallAfter.String()})
		t.set(LifecycleStalled, t.unknownAt.Add(t.opts.StallAfter))
	}
}

// NextDeadline is when a time-based transition may happen without a new
// observation; zero when none is pending.
func (t *LifecycleTracker) NextDeadline() time.Time {
	var d time.Time
	if t.state == LifecycleCandidateComplete && !t.candidate.IsZero() {
		d = t.candidate.Add(t.opts.CompletionStability)
	}
	if t.state != LifecycleStalled && !t.unknownAt.IsZero() {
		d = earliest(d, t.unknownAt.Add(t.opts.StallAfter))
	}
	return d
}

// Status returns the current status.
func (t *LifecycleTracker) Status() LifecycleStatus {
	st := LifecycleStatus{State: t.state, Since: t.since, TurnID: t.turn, Anomalies: t.anomalies}
	if t.last != nil {
		st.SubmitReady = t.last.Assessment.SubmitReady()
	}
	return st
}

// earliest is the earlier of two deadlines, zero meaning none.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	case b.Before(a):
		return b
	}
	return a
}

func (t *LifecycleTracker) set(s LifecycleState, at time.Time) {
	if t.state != s {
		t.state = s
		t.since = at
	}
}
