package tuitest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"ptywright"
)

// EagerUntil classifies every screen change, as a client reacting to
// session.changed or polling adapter.state would, and returns the first
// state ok accepts: no stability wait, no sleep.
func EagerUntil(h *ptywright.ExtensionHandle, ok func(ptywright.StateSnapshot) bool, d time.Duration) (ptywright.StateSnapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	// What was seen instead, for the error: each state with how often and
	// at which sequences it was classified, so a failure says what the
	// plugin made of the screens it was shown.
	var seen []string
	note := func(st ptywright.StateSnapshot) {
		entry := fmt.Sprintf("%s@%d", st.State, st.Sequence)
		if n := len(seen); n == 0 || seen[n-1] != entry {
			seen = append(seen, entry)
		}
	}
	for {
		_, changed := h.Session().Changed()
		st, err := h.State(ctx)
		if err != nil {
			return st, err
		}
		if ok(st) {
			return st, nil
		}
		note(st)
		select {
		case <-changed:
		case <-ctx.Done():
			if len(seen) > 40 {
				seen = append(seen[:20], append([]string{"..."}, seen[len(seen)-20:]...)...)
			}
			return st, fmt.Errorf("not seen within %s; last state %q (%s); states seen (state@sequence): %s",
				d, st.State, st.Evidence, strings.Join(seen, " "))
		}
	}
}

// StateIs accepts a state whose name is one of names.
func StateIs(names ...string) func(ptywright.StateSnapshot) bool {
	return func(st ptywright.StateSnapshot) bool { return slices.Contains(names, st.State) }
}
