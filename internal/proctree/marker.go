// Package proctree finds and ends what a ptywright session started: the
// environment marker every child inherits, the session's own members, and
// on Linux the daemons that left its process group and terminal session
// (see Detached). Session.Close is its one caller.
package proctree

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// MarkerEnv (ptywright.SessionMarkerEnv) is the environment variable that
// marks every process a session starts. Its value is a colon-separated list of session markers:
// the child gets the list it would have inherited (a ptywright session
// started from inside another one keeps its parent's marker) with its own
// session's marker appended. Descendants inherit it across fork, exec,
// setsid and double forks, which is how Close finds the daemons a program
// detached from its terminal session (see ptywright.Options.KeepDetached).
const MarkerEnv = "PTYWRIGHT_SESSION"

// NewMarker returns a fresh session marker: 128 random bits, so that no
// other session, ours or another program's, can carry the same one.
func NewMarker() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // Never fails (crypto/rand panics rather than return an error).
	return "ptyw-" + hex.EncodeToString(b[:])
}

// WithMarker returns env with marker appended to MarkerEnv's list.
func WithMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	value := marker
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		if name == MarkerEnv {
			if v != "" {
				value = v + ":" + marker
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, MarkerEnv+"="+value)
}

// HasMarker reports whether a MarkerEnv value lists marker.
func HasMarker(value, marker string) bool {
	for m := range strings.SplitSeq(value, ":") {
		if m == marker {
			return true
		}
	}
	return false
}
