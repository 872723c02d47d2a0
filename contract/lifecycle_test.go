package contract_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

func assess(avail contract.Availability, business contract.BusinessState, input contract.InputMode) contract.SurfaceAssessment {
	return contract.SurfaceAssessment{Availability: avail, BusinessState: business, InputMode: input, UIContext: contract.UIContextNormalPrompt}
}

var (
	idle    = assess(contract.AvailabilitySupported, contract.BusinessIdle, contract.InputFreeform)
	working = assess(contract.AvailabilitySupported, contract.BusinessWorking, contract.InputClosed)
	blocked = assess(contract.AvailabilitySupported, contract.BusinessAwaitingOperator, contract.InputModal)
	unknown = assess(contract.AvailabilityUnknown, contract.BusinessUnknown, contract.InputUnknown)
)

// step is one recorded observation (or a tick when text is "tick") at ms
// after the start, with the state the tracker must then report.
type step struct {
	ms   int
	a    contract.SurfaceAssessment
	text string
	want contract.LifecycleState
}

func runSteps(t *testing.T, tr *contract.LifecycleTracker, t0 time.Time, steps []step) []contract.LifecycleStatus {
	t.Helper()
	var out []contract.LifecycleStatus
	for i, s := range steps {
		at := t0.Add(time.Duration(s.ms) * time.Millisecond)
		var st contract.LifecycleStatus
		switch s.text {
		case "tick":
			st = tr.Tick(at)
		case "submit": // keys out and taken at once
			tr.Submit(at)
			st = tr.Confirm(at)
		case "propose": // keys out, the receipt not in yet
			st = tr.Submit(at)
		case "confirm":
			st = tr.Confirm(at)
		case "withdraw":
			st = tr.Withdraw()
		default:
			st = tr.Observe(contract.Observation{Time: at, Assessment: s.a, NormalizedText: s.text})
		}
		require.Equal(t, s.want, st.State, "step %d at %dms", i, s.ms)
		out = append(out, st)
	}
	return out
}

func TestLifecycleTurnToCompleted(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{}, t0)
	runSteps(t, tr, t0, []step{
		{0, idle, "> ", contract.LifecycleWaiting},
		{10, contract.SurfaceAssessment{}, "submit", contract.LifecycleWaiting}, // anchored, no evidence yet
		{20, idle, "> ", contract.LifecycleWaiting},                             // same text, not working: still anchored
		{50, working, "> hi\n* Thinking", contract.LifecycleInProgress},
		{400, working, "> hi\n* Thinking.", contract.LifecycleInProgress},
		{900, idle, "> hi\nanswer\n> ", contract.LifecycleCandidateComplete},
		{1500, idle, "> hi\nanswer\n> ", contract.LifecycleCandidateComplete}, // unchanged but not yet 1 s
		{1900, contract.SurfaceAssessment{}, "tick", contract.LifecycleCompleted},
		{5000, idle, "> hi\nanswer\n> ", contract.LifecycleCompleted},
	})
	require.Equal(t, 1, tr.Status().TurnID)
	require.True(t, tr.Status().SubmitReady)
	require.Equal(t, t0.Add(1900*time.Millisecond), tr.Status().Since, "completed at candidate + window")
}

func TestLifecycleRetraction(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{CompletionStability: 500 * time.Millisecond}, t0)
	runSteps(t, tr, t0, []step{
		{0, idle, "p", contract.LifecycleWaiting},
		{1, contract.SurfaceAssessment{}, "submit", contract.LifecycleWaiting},
		{10, idle, "p\nx", contract.LifecycleCandidateComplete},                          // text changed: evidence, already ready
		{200, idle, "p\nxy", contract.LifecycleCandidateComplete},                        // a change restarts the window
		{600, contract.SurfaceAssessment{}, "tick", contract.LifecycleCandidateComplete}, // 400 ms since the change
		{650, working, "p\nxyz", contract.LifecycleInProgress},                           // the tool resumed: retract
		{700, blocked, "p\nallow?", contract.LifecycleInProgress},                        // awaiting operator is not submit-ready
		{800, idle, "p\ndone", contract.LifecycleCandidateComplete},
		{1300, contract.SurfaceAssessment{}, "tick", contract.LifecycleCompleted},
		{1400, working, "p\nmore", contract.LifecycleInProgress}, // completed, then working again
	})
	next := tr.NextDeadline()
	require.True(t, next.IsZero(), "nothing time-based pending while in progress")
}

func TestLifecycleStallAndRecovery(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{StallAfter: 2 * time.Second}, t0)
	sts := runSteps(t, tr, t0, []step{
		{0, idle, "p", contract.LifecycleWaiting},
		{1, contract.SurfaceAssessment{}, "submit", contract.LifecycleWaiting},
		{100, working, "p\n...", contract.LifecycleInProgress},
		{500, unknown, "???", contract.LifecycleInProgress},
		{1500, unknown, "????", contract.LifecycleInProgress},
		{2500, contract.SurfaceAssessment{}, "tick", contract.LifecycleStalled},
		{3000, unknown, "?", contract.LifecycleStalled},
		{3500, working, "p\n....", contract.LifecycleInProgress},
	})
	require.Equal(t, contract.AnomalyStalledEntered, sts[5].Anomalies[0].Code)
	require.Equal(t, t0.Add(2500*time.Millisecond), sts[5].Since)
	require.Empty(t, sts[6].Anomalies)
	require.Equal(t, contract.AnomalyStalledRecovered, sts[7].Anomalies[0].Code)
}

// TestLifecycleIgnoredSubmission: a prompt whose keys the program
// dropped never starts, advances or completes a turn, whatever the
// screen does while its receipt is pending (the composer holds the
// prompt, which changes the text and looks submit-ready).
func TestLifecycleIgnoredSubmission(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{}, t0)
	sts := runSteps(t, tr, t0, []step{
		{0, idle, "> ", contract.LifecycleWaiting},
		{10, contract.SurfaceAssessment{}, "propose", contract.LifecycleWaiting},
		{20, idle, "> hello", contract.LifecycleWaiting},    // typed, not taken
		{30, working, "> hello", contract.LifecycleWaiting}, // even a busy sign moves no pending turn
		{1500, idle, "> hello", contract.LifecycleWaiting},
		{1600, contract.SurfaceAssessment{}, "withdraw", contract.LifecycleWaiting},
		{4000, contract.SurfaceAssessment{}, "tick", contract.LifecycleWaiting},
	})
	for i, st := range sts {
		require.Zero(t, st.TurnID, "step %d: a withdrawn submission has no turn", i)
	}
	require.Equal(t, t0, sts[len(sts)-1].Since, "the lifecycle never moved")

	// After a completed turn, an ignored second prompt leaves turn 1
	// completed.
	tr = contract.NewLifecycleTracker(contract.LifecycleOptions{}, t0)
	sts = runSteps(t, tr, t0, []step{
		{0, idle, "> ", contract.LifecycleWaiting},
		{10, contract.SurfaceAssessment{}, "submit", contract.LifecycleWaiting},
		{20, working, "> hi\n* Thinking", contract.LifecycleInProgress},
		{30, idle, "> hi\n* Answer", contract.LifecycleCandidateComplete},
		{1100, contract.SurfaceAssessment{}, "tick", contract.LifecycleCompleted},
		{1200, contract.SurfaceAssessment{}, "propose", contract.LifecycleCompleted},
		{1210, idle, "> hi\n* Answer\n> again", contract.LifecycleCompleted},
		{2800, contract.SurfaceAssessment{}, "withdraw", contract.LifecycleCompleted},
	})
	require.Equal(t, 1, sts[len(sts)-1].TurnID)
}

// TestLifecycleConfirmAfterAnswer: the program answered before the
// receipt came in; Confirm finds the evidence in the latest observation.
func TestLifecycleConfirmAfterAnswer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{}, t0)
	sts := runSteps(t, tr, t0, []step{
		{0, idle, "> ", contract.LifecycleWaiting},
		{10, contract.SurfaceAssessment{}, "propose", contract.LifecycleWaiting},
		{20, working, "> hi\n* Thinking", contract.LifecycleWaiting},
		{40, idle, "> hi\n* Answer", contract.LifecycleWaiting},
		{50, contract.SurfaceAssessment{}, "confirm", contract.LifecycleCandidateComplete},
		{1100, contract.SurfaceAssessment{}, "tick", contract.LifecycleCompleted},
	})
	require.Equal(t, 1, sts[4].TurnID)
	require.Zero(t, sts[3].TurnID, "no turn before the receipt")
}

func TestLifecycleNextDeadline(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := contract.NewLifecycleTracker(contract.LifecycleOptions{}, t0)
	tr.Submit(t0)
	tr.Confirm(t0)
	tr.Observe(contract.Observation{Time: t0.Add(time.Second), Assessment: idle, NormalizedText: "new"})
	require.Equal(t, t0.Add(2*time.Second), tr.NextDeadline())
	tr.Observe(contract.Observation{Time: t0.Add(1500 * time.Millisecond), Assessment: unknown, NormalizedText: "?"})
	require.Equal(t, t0.Add(1500*time.Millisecond+contract.DefaultStallAfter), tr.NextDeadline())
}

func TestAssessmentValidate(t *testing.T) {
	require.NoError(t, idle.Validate())
	ok := idle
	ok.UIContext = "claude_trust_dialog"
	require.NoError(t, ok.Validate(), "provider contexts are allowed")
	bad := idle
	bad.Availability = "maybe"
	require.ErrorContains(t, bad.Validate(), "assessment.availability")
	bad = idle
	bad.BusinessState = ""
	require.ErrorContains(t, bad.Validate(), "assessment.business_state")
	bad = idle
	bad.InputMode = "voice"
	require.ErrorContains(t, bad.Validate(), "assessment.input_mode")
	bad = idle
	bad.UIContext = "Not Snake"
	require.ErrorIs(t, bad.Validate(), ptywright.ErrInvalidParams)
	bad = idle
	bad.Anomalies = []contract.Anomaly{{Code: "BAD CODE"}}
	require.ErrorContains(t, bad.Validate(), "anomalies[0].code")
	require.True(t, idle.SubmitReady())
	require.False(t, working.SubmitReady())
	require.False(t, blocked.SubmitReady())
}

func TestProjectionAndExtraction(t *testing.T) {
	raw := "banner\u00a0v1   \nq: what?\n<<<A>>>forty\ntwo<<<E>>>  \n\n\n"
	p := contract.NewDialogProjection(raw, "", "test", "", 1, 2)
	require.Equal(t, "banner v1\nq: what?\n<<<A>>>forty\ntwo<<<E>>>", p.NormalizedText)
	require.Equal(t, p.NormalizedText, p.DialogText)
	require.Equal(t, "banner v1", p.Head)
	require.Equal(t, "<<<A>>>forty\ntwo<<<E>>>", p.Tail)
	require.Equal(t, 4, p.Metadata.DialogLineCount)
	require.Equal(t, "tui_snapshot", p.Metadata.SourceKind)

	res, err := ptywright.Extraction{Sentinels: []string{"<<<A>>>", "<<<E>>>"}}.Extract(p.DialogText)
	require.NoError(t, err)
	require.Equal(t, "forty\ntwo", res.Text)

	// The prompt echo quotes the sentinels; the last start marker wins, and
	// an unfinished answer is no match rather than the echo.
	echo := "reply as <<<A>>>x<<<E>>>\n<<<A>>>partial"
	res, err = ptywright.Extraction{Sentinels: []string{"<<<A>>>", "<<<E>>>"}}.Extract(echo)
	require.ErrorIs(t, err, ptywright.ErrNoMatch)
	require.NotErrorIs(t, err, ptywright.ErrInvalidParams, "no match is an outcome, not a caller's mistake")
	require.Equal(t, ptywright.ExtractResult{Method: "sentinel", SearchedChars: len(echo)}, res)

	res, err = ptywright.Extraction{Regex: `answer: (\d+)`, TailChars: 20}.Extract("answer: 1\n....................answer: 2")
	require.NoError(t, err)
	require.Equal(t, ptywright.ExtractResult{Matched: true, Text: "2", Method: "tail_regex", SearchedChars: 20}, res)
	res, err = ptywright.Extraction{Regex: `answer: (\d+)`, TailChars: 5}.Extract("answer: 1")
	require.ErrorIs(t, err, ptywright.ErrNoMatch)
	require.Equal(t, ptywright.ExtractResult{Method: "tail_regex", SearchedChars: 5}, res)
	_, err = ptywright.Extraction{}.Extract("x")
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, err = ptywright.Extraction{Regex: "(", Sentinels: nil}.Extract("x")
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, err = ptywright.Extraction{Sentinels: []string{"a"}}.Extract("x")
	require.ErrorContains(t, err, "sentinels")
}
