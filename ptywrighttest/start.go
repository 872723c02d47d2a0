package ptywrighttest

import (
	"context"
	"strings"
	"testing"
	"time"

	"ptywright"
)

// Start runs a program on a PTY for the length of the test. A cleanup
// closes the session and fails the test if Close returns an error or if any
// process of the program's process group or session is still running
// afterwards (a leaked background job), or on Linux any process that
// carries the session's marker (a daemon that detached, unless
// opts.KeepDetached); such processes are then killed.
func Start(tb testing.TB, opts ptywright.Options) *ptywright.Session {
	tb.Helper()
	s, err := ptywright.Start(opts)
	if err != nil {
		tb.Fatalf("ptywrighttest: start %q: %v", opts.Program, err)
	}
	tb.Cleanup(func() {
		tb.Helper()
		pid := s.Pid()
		marker := s.Marker()
		if opts.KeepDetached {
			marker = "" // The caller asked for its daemons to outlive the session.
		}
		if err := s.Close(); err != nil {
			tb.Errorf("ptywrighttest: close %q: %v", opts.Program, err)
		}
		if left := survivors(pid, marker, leakGrace); len(left) > 0 {
			tb.Errorf("ptywrighttest: %q (pid %d) left processes still running after Close (killed now):\n\t%s",
				opts.Program, pid, strings.Join(left, "\n\t"))
			killSurvivors(pid, marker)
		}
	})
	return s
}

// leakGrace is how long processes the session killed get to disappear.
const leakGrace = 2 * time.Second

// Send performs actions in order, fails the test on the first error, and
// returns what the last one wrote: pass it to ptywright.AfterInput (with
// WithWaitOptions) for an Expect that must see a screen drawn after the
// input. Expect leaves the input's echo out by itself.
func Send(tb testing.TB, s *ptywright.Session, actions ...ptywright.Action) ptywright.Written {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	var w ptywright.Written
	for i, a := range actions {
		var err error
		if w, err = s.Perform(ctx, a); err != nil {
			tb.Fatalf("ptywrighttest: send action %d (%s): %v", i, a.Type, err)
		}
	}
	return w
}
