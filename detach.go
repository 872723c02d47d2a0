package ptywright

import (
	"time"

	"ptywright/internal/proctree"
)

// SessionMarkerEnv is the environment variable that marks every process a
// session starts. Its value is a colon-separated list of session markers:
// the child gets the list it would have inherited (a ptywright session
// started from inside another one keeps its parent's marker) with its own
// session's marker appended. Descendants inherit it across fork, exec,
// setsid and double forks, which is how Close finds the daemons a program
// detached from its terminal session (see Options.KeepDetached).
const SessionMarkerEnv = proctree.MarkerEnv

// Marker returns the session's marker: the entry this session appended to
// SessionMarkerEnv in its child's environment. Every process that inherits
// that environment carries it, which lets a caller find what the session
// started (Close uses it to end detached daemons).
func (s *Session) Marker() string { return s.marker }

// The session's process bookkeeping lives in internal/proctree; these
// names are what Start and Close call.

func newMarker() string                               { return proctree.NewMarker() }
func withMarker(env []string, marker string) []string { return proctree.WithMarker(env, marker) }
func processStart(pid int) uint64                     { return proctree.StartTime(pid) }
func killSessionMembers(sid int)                      { proctree.KillSession(sid) }

// detached is what Close ends after the process group; nil when the
// session keeps its detached daemons.
type detached struct{ d *proctree.Detached }

func trackDetached(root int, since uint64, marker string) *detached {
	return &detached{proctree.Track(root, since, marker)}
}

func (d *detached) end(grace time.Duration) {
	if d != nil {
		d.d.End(grace)
	}
}
