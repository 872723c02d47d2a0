package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestXVTPanicIsRecovered: serving a Screen, a panic inside x/vt drops the
// write instead of taking the session's reader (and the process) down.
func TestXVTPanicIsRecovered(t *testing.T) {
	e := &XVT{RecoverPanics: true} // no emulator: every call panics inside
	require.NotPanics(t, func() { e.Write([]byte("x")) })
	require.NotPanics(t, func() { e.Resize(3, 3) })
	e.RecoverPanics = false
	require.Panics(t, func() { e.Write([]byte("x")) }, "the differential tests see x/vt's panics")
}
