package ptywright

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// SessionMarkerEnv is the environment variable that marks every process a
// session starts. Its value is a colon-separated list of session markers:
// the child gets the list it would have inherited (a ptywright session
// started from inside another one keeps its parent's marker) with its own
// session's marker appended. Descendants inherit it across fork, exec,
// setsid and double forks, which is how Close finds the daemons a program
// detached from its terminal session (see Options.KeepDetached).
const SessionMarkerEnv = "PTYWRIGHT_SESSION"

// newMarker returns a fresh session marker: 128 random bits, so that no
// other session, ours or another program's, can carry the same one.
func newMarker() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // Never fails (crypto/rand panics rather than return an error).
	return "ptyw-" + hex.EncodeToString(b[:])
}

// withMarker returns env with marker appended to SessionMarkerEnv's list.
func withMarker(env []string, marker string) []string {
	out := make([]string, 0, len(env)+1)
	value := marker
	for _, kv := range env {
		name, v, _ := cutEnv(kv)
		if name == SessionMarkerEnv {
			if v != "" {
				value = v + ":" + marker
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, SessionMarkerEnv+"="+value)
}

// hasMarker reports whether a SessionMarkerEnv value lists marker.
func hasMarker(value, marker string) bool {
	for m := range strings.SplitSeq(value, ":") {
		if m == marker {
			return true
		}
	}
	return false
}

// Marker returns the session's marker: the entry this session appended to
// SessionMarkerEnv in its child's environment. Every process that inherits
// that environment carries it, which lets a caller find what the session
// started (Close uses it to end detached daemons).
func (s *Session) Marker() string { return s.marker }
