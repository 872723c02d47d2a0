package tuitest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"ptywright"
)

// EagerUntil classifies every screen change, as a client reacting to
// session.changed or polling adapter.state would, and returns the first
// state ok accepts: no stability wait, no sleep.
func EagerUntil(h *ptywright.ExtensionHandle, ok func(ptywright.StateSnapshot) bool, d time.Duration) (ptywright.StateSnapshot, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		_, changed := h.Session().Changed()
		st, err := h.State(ctx)
		if err != nil {
			return st, err
		}
		if ok(st) {
			return st, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return st, fmt.Errorf("not seen within %s; last state %q (%s)", d, st.State, st.Evidence)
		}
	}
}

// StateIs accepts a state whose name is one of names.
func StateIs(names ...string) func(ptywright.StateSnapshot) bool {
	return func(st ptywright.StateSnapshot) bool { return slices.Contains(names, st.State) }
}
