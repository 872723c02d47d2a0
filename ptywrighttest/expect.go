package ptywrighttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"ptywright"
	"ptywright/internal/screentext"
)

// DefaultTimeout bounds Expect and Send unless a Timeout option says
// otherwise. A test with an earlier deadline (go test -timeout) gets a
// failure with the screen shortly before it instead of a panic.
const DefaultTimeout = 10 * time.Second

// ExpectOption adjusts one Expect.
type ExpectOption func(*expectConfig)

type expectConfig struct {
	timeout     time.Duration
	wait        []ptywright.WaitOption
	includeEcho bool
}

// Timeout replaces DefaultTimeout for one Expect.
func Timeout(d time.Duration) ExpectOption { return func(c *expectConfig) { c.timeout = d } }

// IncludeEcho lets Expect match on the echo of the session's last input,
// which it otherwise leaves out: for a wait on the text a test typed
// itself (into an editor, say, where the typed text is the answer).
func IncludeEcho() ExpectOption { return func(c *expectConfig) { c.includeEcho = true } }

// WithWaitOptions passes options to Session.Wait (a predicate registry for
// lua matchers, a redactor for the evidence).
func WithWaitOptions(opts ...ptywright.WaitOption) ExpectOption {
	return func(c *expectConfig) { c.wait = append(c.wait, opts...) }
}

// Expect waits until m matches and returns the evidence. If it does not
// match in time, the test fails with the matcher, the last screen and the
// tail of the output, control codes escaped.
//
// After input (Send, or the session's Send or Perform), the contains_text
// and screen_regex branches of m do not match on that input's echo
// (ptywright.ExcludeEcho with the session's LastInput): after
// Send(Text("echo hi\r")) at a shell prompt, ExpectText("hi") answers on
// the output line, not on the command line. IncludeEcho turns that off.
func Expect(tb testing.TB, s *ptywright.Session, m ptywright.Matcher, opts ...ExpectOption) *ptywright.WaitResult {
	tb.Helper()
	cfg := expectConfig{timeout: DefaultTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), boundByTest(tb, cfg.timeout))
	defer cancel()
	wait := cfg.wait
	if last, ok := s.LastInput(); ok && !cfg.includeEcho {
		wait = append([]ptywright.WaitOption{ptywright.ExcludeEcho(last.Echo)}, wait...)
	}
	res, err := s.Wait(ctx, m, wait...)
	if err != nil {
		tb.Fatal(expectFailure(s, m, err))
	}
	return res
}

// ExpectText waits until the screen contains text; see Expect.
func ExpectText(tb testing.TB, s *ptywright.Session, text string, opts ...ExpectOption) *ptywright.WaitResult {
	tb.Helper()
	return Expect(tb, s, ptywright.ContainsText(text), opts...)
}

func testDeadline(tb testing.TB) (time.Time, bool) {
	if d, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}

// expectFailure describes a failed wait for a person reading test output.
func expectFailure(s *ptywright.Session, m ptywright.Matcher, err error) string {
	var b strings.Builder
	mj, jerr := json.Marshal(m)
	if jerr != nil {
		mj = []byte(fmt.Sprintf("%+v", m))
	}
	// The first line of a *WaitError's text: the screen follows in full.
	msg, _, _ := strings.Cut(err.Error(), "\n")
	fmt.Fprintf(&b, "ptywrighttest: expect %s: %s\n", mj, msg)
	var we *ptywright.WaitError
	if !errors.As(err, &we) {
		return b.String()
	}
	if st, ok := s.ExitStatus(); ok {
		fmt.Fprintf(&b, "the program has exited (code %d", st.Code)
		if st.Signal != "" {
			fmt.Fprintf(&b, ", signal %s", st.Signal)
		}
		b.WriteString(")\n")
	}
	b.WriteString(formatScreen(we.Snapshot))
	b.WriteString("output tail (last 2000 characters, control codes escaped):\n")
	b.WriteString(indentEscaped(we.TranscriptTail, "\t"))
	return b.String()
}

// formatScreen prints a snapshot's rows with row numbers, up to the last
// non-blank one.
func formatScreen(snap ptywright.ScreenSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "screen (%dx%d, cursor row %d col %d", snap.Size.Rows, snap.Size.Cols, snap.Cursor.Row, snap.Cursor.Col)
	if !snap.Cursor.Visible {
		b.WriteString(" hidden")
	}
	if snap.AlternateScreen {
		b.WriteString(", alternate screen")
	}
	b.WriteString("):\n")
	screentext.Rows(&b, snap.Lines(), 0)
	return b.String()
}
