package ptywrighttest

import (
	"fmt"
	"testing"
	"time"

	"ptywright"
)

// DefaultGoldenTimeout is how long RequireScreen waits for the screen to
// match its golden unless Within says otherwise.
const DefaultGoldenTimeout = 5 * time.Second

// DefaultSettle is how long a screen that does not match its golden must
// stay unchanged before RequireScreen gives up on it, unless SettleFor says
// otherwise.
const DefaultSettle = time.Second

// Within replaces DefaultGoldenTimeout for one RequireScreen.
func Within(d time.Duration) ScreenOption { return func(c *goldenConfig) { c.within = d } }

// SettleFor replaces DefaultSettle for one RequireScreen: for a program
// that pauses longer than a second while it draws the screen a golden
// holds.
func SettleFor(d time.Duration) ScreenOption { return func(c *goldenConfig) { c.settle = d } }

// RequireScreen compares the session's screen (redacted) with the golden
// file testdata/NAME.screen: the rows as plain text, trailing spaces
// trimmed, one line per row. It compares at once and again at every
// change of the screen until the screen matches, so a test need not wait
// for the program to finish drawing first; after input (Send, or the
// session's Send or Perform), only a screen drawn after that input
// matches, unless the screen does not change for the settle time. It
// fails once the screen has not changed for DefaultSettle (SettleFor) and
// still does not match, or when DefaultGoldenTimeout (Within) has passed,
// whichever comes first (a screen with nothing drawn yet, or none since
// the input, is waited on until the timeout: the program may be slow),
// with the last screen and a unified diff, and a picture of that screen
// written next to the golden as NAME.failed.svg (add "*.failed.svg" to
// .gitignore); a later pass removes it. name may contain slashes to use
// subdirectories.
//
// With -update (or PTYWRIGHT_UPDATE=1) it writes the file instead, with
// the screen once it has not changed for the settle time (or at the
// timeout).
func RequireScreen(tb testing.TB, s *ptywright.Session, name string, opts ...ScreenOption) {
	tb.Helper()
	cfg, err := newGoldenConfig(name, opts)
	if err != nil {
		tb.Fatalf("ptywrighttest: golden %q: %v", name, err)
	}
	snap, report, why, err := awaitGolden(tb, s, name, cfg)
	if err != nil {
		tb.Fatalf("ptywrighttest: golden %q: %v", name, err)
	}
	if update() {
		updateGolden(tb, snap, name, cfg)
		return
	}
	if report != "" {
		report = why + "; " + report
	}
	failGolden(tb, snap, name, cfg, report)
}

// awaitGolden compares the session's screen with the golden at once and
// at every change until it matches (report ""), the screen has not
// changed for cfg.settle (compared then a last time) or cfg.within has
// passed (why says which). After input, only a screen drawn after it
// counts until the screen settles. A screen still unchanged since the
// input, or with nothing drawn yet, that settles without matching is
// waited on until the timeout: the program may only be slow. With -update
// it only waits for the screen to settle.
func awaitGolden(tb testing.TB, s *ptywright.Session, name string, cfg goldenConfig) (snap ptywright.ScreenSnapshot, report, why string, err error) {
	deadline := time.NewTimer(boundByTest(tb, cfg.within))
	defer deadline.Stop()
	settle := time.NewTimer(cfg.settle)
	defer settle.Stop()
	settled := settle.C
	last, sent := s.LastInput()
	for {
		seq, changed := s.Changed()
		snap = s.Snapshot(ptywright.SnapshotOptions{Cells: true})
		waiting := seq == 0 || sent && seq <= last.Sequence // nothing drawn yet, or since the input
		if !update() && !waiting {
			if report, err = compareGolden(snap, name, cfg); err != nil || report == "" {
				return snap, report, "", err
			}
		}
		select {
		case <-changed:
			settle.Reset(cfg.settle)
			settled = settle.C
			continue
		case <-settled:
			why = fmt.Sprintf("the screen settled (no change for %s) without matching", cfg.settle)
			if waiting {
				settled = nil // Until the next change.
				if update() {
					continue
				}
				if report, err = compareGolden(snap, name, cfg); err != nil || report == "" {
					return snap, report, "", err
				}
				continue
			}
		case <-deadline.C:
			why = fmt.Sprintf("the screen did not match within %s", cfg.within)
		}
		if update() {
			return snap, "", why, nil
		}
		if waiting { // Not compared above.
			report, err = compareGolden(snap, name, cfg)
		}
		return snap, report, why, err
	}
}

// boundByTest is d, or less when the test's deadline comes first: time to
// report before the test binary's own timeout panics.
func boundByTest(tb testing.TB, d time.Duration) time.Duration {
	if dl, ok := testDeadline(tb); ok {
		if left := time.Until(dl) - time.Second; left < d {
			return max(left, 0)
		}
	}
	return d
}
