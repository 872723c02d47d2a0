package ptywright_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
)

func TestWaitMarkerAppearsLate(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `sleep 0.3; echo MARKER; sleep 5`)
	res := waitFor(t, s, ptywright.ContainsText("MARKER"))
	require.True(t, res.Matched)
	require.Equal(t, ptywright.MatchContainsText, res.Outcome.Kind)
	require.Equal(t, 0, *res.Outcome.Row)
	require.Equal(t, 0, *res.Outcome.Col)
	require.Equal(t, "MARKER", res.Outcome.Text)
	require.Contains(t, res.TranscriptTail, "MARKER")
	require.GreaterOrEqual(t, res.Elapsed, 250*time.Millisecond)
}

func TestWaitRegexCapture(t *testing.T) {
	s := sh(t, `echo 'total: 42 tokens'; echo 'next: 7'; sleep 5`)
	res := waitFor(t, s, ptywright.ScreenRegex(`next: (\d+)`))
	require.Equal(t, "7", *res.Outcome.Capture)
	require.Equal(t, 1, *res.Outcome.Row)
	require.Equal(t, `next: (\d+)`, res.Outcome.Pattern)

	res = waitFor(t, s, ptywright.ScreenRegex(`\d+ tokens`))
	require.Equal(t, "42 tokens", *res.Outcome.Capture, "no group: the whole match")
	// Rows are joined by \n so a regex can span them.
	waitFor(t, s, ptywright.ScreenRegex(`tokens\nnext`))
}

func TestWaitCursorAt(t *testing.T) {
	s := sh(t, `printf '\033[2J\033[5;10H'; sleep 5`)
	res := waitFor(t, s, ptywright.CursorAt(4, 9))
	require.Equal(t, 4, *res.Outcome.Row)
	require.Equal(t, 9, *res.Outcome.Col)
	require.Equal(t, ptywright.Cursor{Row: 4, Col: 9, Visible: true}, res.Snapshot.Cursor)
}

func TestWaitScreenStableAfterBurst(t *testing.T) {
	s := sh(t, `for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.03; done; echo done; sleep 5`)
	res := waitFor(t, s, ptywright.All(ptywright.ContainsText("done"), ptywright.ScreenStable(200*time.Millisecond)))
	require.GreaterOrEqual(t, res.StableFor, 200*time.Millisecond)
	require.Contains(t, res.Snapshot.PlainText, "tick 10\ndone")
	require.Equal(t, ptywright.MatchAll, res.Outcome.Kind)
	require.Len(t, res.Outcome.Matched, 2)
	require.Equal(t, int64(200), *res.Outcome.Matched[1].MinMs)
}

func TestWaitProcessExitRacingTheWait(t *testing.T) {
	for range 20 {
		s := sh(t, `echo last-words`)
		res := waitFor(t, s, ptywright.ProcessExited())
		require.Equal(t, ptywright.MatchProcessExited, res.Outcome.Kind)
		// Exited means drained: the output written before exit is on screen.
		require.Contains(t, res.Snapshot.PlainText, "last-words")
	}
}

func TestWaitAlreadySatisfied(t *testing.T) {
	s := sh(t, `echo here; sleep 5`)
	waitFor(t, s, ptywright.ContainsText("here"))
	seq := s.Sequence()
	res := waitFor(t, s, ptywright.ContainsText("here"))
	require.Equal(t, seq, res.Sequence)
}

func TestWaitTimeoutCarriesEvidence(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `echo visible-text; sleep 5`)
	waitFor(t, s, ptywright.ContainsText("visible-text"))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := s.Wait(ctx, ptywright.ContainsText("never"))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	var we *ptywright.WaitError
	require.ErrorAs(t, err, &we)
	require.Contains(t, we.Snapshot.PlainText, "visible-text")
	require.Contains(t, we.TranscriptTail, "visible-text")
	// The wait's clock starts a little after the context's: it ran until
	// the deadline, give or take the moments between the two.
	require.GreaterOrEqual(t, we.Elapsed, 140*time.Millisecond)
}

func TestWaitCancelledFromAnotherGoroutine(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `sleep 5`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, err := s.Wait(ctx, ptywright.ContainsText("never"))
	require.ErrorIs(t, err, ptywright.ErrCancelled)
	require.NotErrorIs(t, err, ptywright.ErrTimeout)
}

func TestWaitOnClosedSession(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "sleep 5"}})
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Wait(context.Background(), ptywright.ContainsText("never"))
		errc <- err
	}()
	tuitest.ParkedIn(t, "ptywright.(*Session).Wait", 1) // The close must wake it.
	require.NoError(t, s.Close())
	require.ErrorIs(t, <-errc, ptywright.ErrSessionClosed)
	_, err = s.Wait(context.Background(), ptywright.ContainsText("x"))
	require.ErrorIs(t, err, ptywright.ErrSessionClosed)
}

func TestManyWaitersWokenByOneWrite(t *testing.T) {
	tuitest.NoLeak(t)
	s := start(t, ptywright.Options{Program: "/bin/cat"})
	const n = 50
	var wg sync.WaitGroup
	results := make([]*ptywright.WaitResult, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			results[i], errs[i] = s.Wait(ctx, ptywright.ContainsText("wake-all"))
		}()
	}
	tuitest.ParkedIn(t, "ptywright.(*Session).Wait", n) // One write must wake all.
	send(t, s, ptywright.Text("wake-all"))
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		require.True(t, results[i].Matched)
	}
}

func TestWaitTranscriptMatchers(t *testing.T) {
	s := sh(t, `printf 'alpha\033[2Jbeta id=123\n'; sleep 5`)
	// The clear wiped "alpha" off the screen; the transcript still has it.
	res := waitFor(t, s, ptywright.TranscriptContains("alpha"))
	require.Equal(t, ptywright.MatchTranscriptContains, res.Outcome.Kind)
	res = waitFor(t, s, ptywright.TranscriptRegex(`id=(\d+)`))
	require.Equal(t, "123", *res.Outcome.Capture)
	require.NotContains(t, res.Snapshot.PlainText, "alpha")
}

func TestWaitNesting(t *testing.T) {
	s := sh(t, `echo one; sleep 0.1; echo two; sleep 5`)
	res := waitFor(t, s, ptywright.Any(
		ptywright.ContainsText("never"),
		ptywright.All(ptywright.ContainsText("one"), ptywright.Any(ptywright.ScreenRegex(`t(w)o`), ptywright.ContainsText("never2"))),
	))
	require.Equal(t, ptywright.MatchAny, res.Outcome.Kind)
	require.Len(t, res.Outcome.Matched, 1)
	all := res.Outcome.Matched[0]
	require.Equal(t, ptywright.MatchAll, all.Kind)
	require.Len(t, all.Matched, 2)
	require.Equal(t, "w", *all.Matched[1].Matched[0].Capture)
}

// goPredicates is a real contract.PredicateRegistry written in Go; the Lua host is
// tested with its own plugins.
type goPredicates struct {
	mu    sync.Mutex
	calls int
	seen  contract.PredicateInput
}

func (g *goPredicates) EvalPredicate(_ context.Context, plugin, predicate string, in contract.PredicateInput) (contract.PredicateOutcome, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	g.seen = in
	if plugin != "test" || predicate != "has_anchor" {
		return contract.PredicateOutcome{}, errors.New("no such predicate")
	}
	var p struct{ Anchor string }
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return contract.PredicateOutcome{}, err
	}
	if i := strings.Index(in.Screen, p.Anchor); i >= 0 {
		c := in.Screen[i:]
		return contract.PredicateOutcome{Matched: true, Evidence: "anchor found", Capture: &c}, nil
	}
	return contract.PredicateOutcome{}, nil
}

func TestWaitLuaPredicateRegistry(t *testing.T) {
	s := sh(t, `sleep 0.1; echo ready-now; sleep 5`)
	reg := &goPredicates{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.Wait(ctx, ptywright.Lua("test", "has_anchor", json.RawMessage(`{"anchor":"ready"}`)), ptywright.WithPredicates(reg))
	require.NoError(t, err)
	require.Equal(t, ptywright.MatchLua, res.Outcome.Kind)
	require.Equal(t, "anchor found", res.Outcome.Evidence)
	require.Equal(t, "ready-now", *res.Outcome.Capture)
	require.False(t, reg.seen.ProcessExited)
	require.NotZero(t, reg.seen.Sequence)
	require.Equal(t, res.Sequence, reg.seen.Sequence, "the predicate saw the screen the result carries")
	require.Contains(t, res.Snapshot.PlainText, "ready-now")

	_, err = s.Wait(ctx, ptywright.Lua("test", "missing", nil), ptywright.WithPredicates(reg))
	require.ErrorContains(t, err, "no such predicate")
	_, err = s.Wait(ctx, ptywright.Lua("test", "has_anchor", nil))
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher, "a lua branch needs a registry")
}

func TestMatcherJSON(t *testing.T) {
	valid := []string{
		`{"type":"contains_text","value":"ready"}`,
		`{"type":"screen_regex","value":"rea.y"}`,
		`{"type":"transcript_contains","value":"ready"}`,
		`{"type":"transcript_regex","value":"rea.y"}`,
		`{"type":"cursor_at","value":{"row":0,"col":0}}`,
		`{"type":"screen_stable","value":{"min_ms":250}}`,
		`{"type":"process_exited"}`,
		`{"type":"any","value":[{"type":"contains_text","value":"ready"}]}`,
		`{"type":"all","value":[{"type":"contains_text","value":"rea"},{"type":"contains_text","value":"dy"}]}`,
		`{"type":"lua","value":{"plugin":"p","predicate":"f","params":{"anchor":"ready"}}}`,
	}
	for _, src := range valid {
		var m ptywright.Matcher
		require.NoError(t, json.Unmarshal([]byte(src), &m), src)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		require.JSONEq(t, src, string(out))
	}

	invalid := map[string]string{
		`{"type":"nope","value":"x"}`:                                      `matcher.type: unknown matcher type "nope" (valid types: contains_text, screen_regex, transcript_contains, transcript_regex, cursor_at, screen_stable, process_exited, any, all, none, lua)`,
		`{"value":"x"}`:                                                    `matcher.type: required`,
		`{"type":"screen_regex","value":"("}`:                              `matcher.value: invalid regular expression`,
		`{"type":"screen_stable","value":{"min_ms":-1}}`:                   `matcher.value.min_ms: must not be negative`,
		`{"type":"screen_stable","value":{"min":1}}`:                       `unknown field "min"`,
		`{"type":"any","value":[]}`:                                        `matcher.value: any needs at least one matcher`,
		`{"type":"all","value":[{"type":"x"}]}`:                            `matcher.value[0].type: unknown matcher type "x"`,
		`{"type":"contains_text","value":5}`:                               `matcher.value: must be a string`,
		`{"type":"contains_text"}`:                                         `matcher.value: required`,
		`{"type":"process_exited","value":1}`:                              `takes no value`,
		`{"type":"contains_text","value":"x","extra":1}`:                   `unknown field "extra"`,
		`{"type":"cursor_at","value":{"row":1}}`:                           `needs row and col`,
		`{"type":"lua","value":{"plugin":"p"}}`:                            `matcher.value.predicate: required`,
		`{"type":"any","value":[{"type":"any","value":[{"type":"bad"}]}]}`: `matcher.value[0].value[0].type`,
	}
	for src, want := range invalid {
		var m ptywright.Matcher
		err := json.Unmarshal([]byte(src), &m)
		require.ErrorIs(t, err, ptywright.ErrInvalidMatcher, src)
		require.ErrorContains(t, err, want, src)
	}
}

func TestWaitRejectsMalformedMatcherBeforeWaiting(t *testing.T) {
	s := sh(t, `sleep 5`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	_, err := s.Wait(ctx, ptywright.ScreenRegex("(unclosed"))
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	_, err = s.Wait(ctx, ptywright.Any())
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	_, err = s.Wait(ctx, ptywright.Matcher{Type: ptywright.MatchScreenStable, MinMs: -5})
	require.ErrorContains(t, err, "min_ms")
	_, err = s.Wait(ctx, ptywright.Matcher{Type: "telepathy"})
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	require.ErrorContains(t, err, `unknown matcher type "telepathy" (valid types: contains_text, `)
}
