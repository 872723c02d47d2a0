package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"ptywright/contract"
	"ptywright/internal/screentext"
)

// transcriptTailChars is how much of the transcript a wait's evidence carries.
const transcriptTailChars = 2000

// DefaultWaitTimeout is how long Session.Wait waits when its context has no
// deadline, the default of JSON-RPC's session.wait too. A context with a
// deadline, however far, is left as it is; adapter waits have their own
// default, DefaultAdapterWaitTimeout.
const DefaultWaitTimeout = 30 * time.Second

// defaultWaitTimeout is DefaultWaitTimeout, in nanoseconds; the tests
// shorten it.
var defaultWaitTimeout atomic.Int64

func init() { defaultWaitTimeout.Store(int64(DefaultWaitTimeout)) }

// waitErrorRows is how many screen rows, up to the last non-blank one,
// WaitError.Error shows.
const waitErrorRows = 8

// waitErrorMatcherChars caps the matcher's JSON in WaitError.Error.
const waitErrorMatcherChars = 200

// WaitResult is the evidence of a successful wait.
type WaitResult struct {
	Matched  bool          `json:"matched"`
	Sequence uint64        `json:"sequence"`
	Elapsed  time.Duration `json:"-"`
	// Snapshot is the screen the matcher matched on (Sequence is its
	// sequence), without cells; the screen at the match when the matcher
	// reads no screen (transcript, exit, stability).
	Snapshot ScreenSnapshot `json:"snapshot"`
	// TranscriptTail is the last 2000 characters of output, redacted.
	TranscriptTail string `json:"transcript_tail"`
	// StableFor is how long the screen had been unchanged.
	StableFor time.Duration `json:"-"`
	// Outcome says which branch fired.
	Outcome *MatchOutcome `json:"outcome,omitempty"`
}

// WaitError is returned when a wait gives up. It wraps ErrTimeout,
// ErrCancelled, ErrSessionClosed or ErrProcessExited and carries what the
// screen looked like.
type WaitError struct {
	Err error
	// Matcher is what the wait waited for (the plugin's matcher, on an
	// adapter's wait); the zero Matcher when the wait gave up before it
	// had one (queued behind another caller).
	Matcher        Matcher
	Elapsed        time.Duration
	Sequence       uint64
	Snapshot       ScreenSnapshot
	TranscriptTail string // the last 2000 characters of output, redacted
	// Explanation, on an adapter's wait (ExtensionHandle.Wait, Turn, the
	// wait_lifecycle intent, and a wait that gave up while queued), is the
	// explanation of the handle's last classification, whoever made it
	// (its Sequence says which screen; it is not a new classification
	// unless the handle had made none), redacted like Snapshot, with the
	// handle's redactor. nil once the handle is closed.
	Explanation *contract.Explanation

	matcherText string // Matcher for Error, redacted
}

// Error names the matcher (its JSON, redacted like the evidence, cut at 200
// characters), the cause, how long the wait took and the last sequence on
// its first line, then the screen's size and cursor and its last rows up to
// the last non-blank one (at most 8, control characters escaped), as the
// JSON-RPC and MCP faces and package ptywrighttest report a failed wait.
// The rest of the evidence is in the fields.
func (e *WaitError) Error() string {
	var b strings.Builder
	b.WriteString("wait")
	if e.matcherText != "" {
		b.WriteString(" for ")
		b.WriteString(e.matcherText)
	}
	fmt.Fprintf(&b, ": %v after %s (sequence %d)", e.Err, e.Elapsed.Round(time.Millisecond), e.Sequence)
	snap := e.Snapshot
	if snap.Size.Rows == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "\nscreen (%dx%d, cursor row %d col %d):\n", snap.Size.Rows, snap.Size.Cols, snap.Cursor.Row, snap.Cursor.Col)
	screentext.Rows(&b, snap.Lines(), waitErrorRows)
	return strings.TrimSuffix(b.String(), "\n")
}

// describeMatcher is m's JSON for an error message, redacted with r and cut
// at waitErrorMatcherChars; "" for the zero Matcher.
func describeMatcher(m Matcher, r *Redactor) string {
	if m.Type == "" {
		return ""
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return string(m.Type)
	}
	text := r.Redact(string(raw))
	if len(text) > waitErrorMatcherChars {
		cut := waitErrorMatcherChars
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	return text
}

// Unwrap returns the cause (ErrTimeout, ErrCancelled, ErrSessionClosed,
// ErrProcessExited).
func (e *WaitError) Unwrap() error { return e.Err }

// WaitOption adjusts one wait.
type WaitOption func(*waitConfig)

type waitConfig struct {
	reg      contract.PredicateRegistry
	redactor *Redactor
	after    *uint64
	echo     *Echo // the echo text branches do not match on (ExcludeEcho)
}

// After makes the wait see only what came after sequence seq, typically the
// Sequence of a Written returned by Session.Perform: the screen, transcript,
// cursor and lua branches match only once the screen has changed since seq,
// and screen_stable counts from the wait's start at the earliest. So a wait
// issued right after input never answers with the screen from before it.
// process_exited is not held back: an exit is news whenever it comes.
func After(seq uint64) WaitOption {
	return func(c *waitConfig) { c.after = &seq }
}

// WithPredicates binds the registry that decides lua matchers.
func WithPredicates(r contract.PredicateRegistry) WaitOption {
	return func(c *waitConfig) { c.reg = r }
}

// WithRedactor sets the redaction applied to the evidence: the snapshot,
// the transcript tail and a capture. nil means the session's redactor
// (Options.Redactor), as when the option is not given; NoRedaction leaves
// the evidence raw.
func WithRedactor(r *Redactor) WaitOption {
	return func(c *waitConfig) { c.redactor = r }
}

// Wait blocks until m matches, ctx ends, the session closes or m can no
// longer match. It evaluates m once at the start and then only when the
// screen changes, when a screen_stable window may have elapsed, or when
// the child exits or its output ends: an idle wait costs nothing.
//
// A ctx without a deadline gets one DefaultWaitTimeout from the call. A
// deadline on ctx gives a *WaitError wrapping ErrTimeout with the last
// screen and transcript tail; cancellation wraps ErrCancelled. Once the
// child has exited and its output is all read, a matcher that does not
// match the final screen and transcript, with no screen_stable window
// left to run, gives a *WaitError wrapping ErrProcessExited at once
// instead of waiting out ctx; so does a matcher that reads nothing but
// the exit, once the child has exited. Only a resize can change an exited
// program's screen after that: a caller that resizes waits again.
func (s *Session) Wait(ctx context.Context, m Matcher, opts ...WaitOption) (*WaitResult, error) {
	cm, err := compileMatcher(m, "matcher")
	if err != nil {
		return nil, err
	}
	var cfg waitConfig
	for _, o := range opts {
		o(&cfg)
	}
	cfg.redactor = s.redactor(cfg.redactor)
	if cm.has(MatchLua) && cfg.reg == nil {
		return nil, fmt.Errorf("%w: matcher has a lua branch but no plugin registry is bound", ErrInvalidMatcher)
	}
	start := time.Now()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(defaultWaitTimeout.Load()))
		defer cancel()
	}
	fail := func(cause error) *WaitError {
		we := s.waitError(cause, start, cfg.redactor)
		we.Matcher, we.matcherText = m, describeMatcher(m, cfg.redactor)
		return we
	}
	// Only a matcher that looks at stability needs the time of the last
	// visible change at every look; for the others it is read once, for
	// the result's StableFor, since bringing it up to date hashes the
	// screen.
	stable := cm.needsStability()
	if stable {
		defer s.trackStability()()
	}
	// A matcher that only asks whether the child exited waits for the exit
	// alone: woken by every chunk of output, as a flood would, it would
	// only find the same answer again. Unless an After hold keeps a none
	// branch from matching until the screen changes: then output counts.
	exitOnly := cm.exitOnly() && (cfg.after == nil || !cm.has(MatchNone))
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		// Read before the watch: once the parser has fed the last of the
		// output, the sequence the watch gives and the look after it are
		// the final ones (read later, an After hold could be judged on a
		// sequence from before the last output).
		final := isDone(s.exited) && isDone(s.readerDone)
		var o observation
		switch {
		case stable:
			o = s.observe(observeNext | observeVisible)
		case exitOnly:
			o = s.observe(0)
			o.next = s.exited // Closed, with s.closed set, before a close ends too.
		default:
			o = s.observe(observeNext)
		}
		seq, changed, last := o.seq, o.next, o.lastVisible
		if o.closed {
			return nil, fail(ErrSessionClosed)
		}
		st := &evalState{ctx: ctx, s: s, reg: cfg.reg, now: time.Now(), lastChange: last, exited: isDone(s.exited), echo: cfg.echo}
		if cfg.after != nil {
			st.held = seq <= *cfg.after
		}
		st.lastChange = lastChangeAfter(last, start, cfg.after != nil)
		out, wake, err := cm.eval(st)
		if err != nil {
			return nil, err
		}
		if out != nil {
			if !stable {
				// Never later than the look the match was made at.
				if last = s.lastVisibleChange(); last.After(st.now) {
					last = st.now
				}
				st.lastChange = lastChangeAfter(last, start, cfg.after != nil)
			}
			return s.waitResult(out, start, st, cfg.redactor), nil
		}
		if (final || exitOnly && st.exited) && wake.IsZero() {
			// The program has exited, its output is all read (or the
			// matcher reads nothing but the exit), and no stability window
			// is pending: nothing left but a resize can change the answer,
			// and waiting out the deadline would only hide why.
			return nil, fail(ErrProcessExited)
		}
		var ended <-chan struct{}
		if st.exited && !final {
			// Exited, but something it left keeps the terminal open: the
			// end of the output may come without any.
			ended = s.readerDone
		}
		var wakeC <-chan time.Time
		if !wake.IsZero() {
			d := time.Until(wake)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			wakeC = timer.C
		}
		select {
		case <-changed:
		case <-ended:
		case <-wakeC:
		case <-ctx.Done():
			cause := ErrCancelled
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				cause = ErrTimeout
			}
			return nil, fail(cause)
		}
	}
}

// lastChangeAfter is the last visible change as a wait sees it: a wait
// after a sequence counts stability from its own start at the earliest.
func lastChangeAfter(last, start time.Time, after bool) time.Time {
	if after && last.Before(start) {
		return start
	}
	return last
}

func (s *Session) waitResult(out *MatchOutcome, start time.Time, st *evalState, r *Redactor) *WaitResult {
	// Captures (under any and all too) and predicate evidence quote the
	// screen across rows: hide every row's piece of a wrapped secret.
	snap, quoting := redactLook(st.snapshot(), r)
	out = out.redacted(quoting)
	return &WaitResult{
		Matched:        true,
		Sequence:       snap.Sequence,
		Elapsed:        time.Since(start),
		Snapshot:       snap,
		TranscriptTail: s.transcriptTail(r),
		StableFor:      st.stableFor(),
		Outcome:        out,
	}
}

func (s *Session) waitError(cause error, start time.Time, r *Redactor) *WaitError {
	snap := s.Snapshot(SnapshotOptions{Redactor: r})
	return &WaitError{
		Err:            cause,
		Elapsed:        time.Since(start),
		Sequence:       snap.Sequence,
		Snapshot:       snap,
		TranscriptTail: s.transcriptTail(r),
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
