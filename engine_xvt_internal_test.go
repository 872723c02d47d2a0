package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestXVTPanicIsRecovered: serving a Screen, a panic inside x/vt drops the
// write instead of taking the session's reader (and the process) down.
func TestXVTPanicIsRecovered(t *testing.T) {
	e := &vtEngine{recoverPanics: true} // no emulator: every call panics inside
	require.NotPanics(t, func() { e.write([]byte("x")) })
	require.NotPanics(t, func() { e.resize(3, 3) })
	e.recoverPanics = false
	require.Panics(t, func() { e.write([]byte("x")) }, "the differential tests see x/vt's panics")
}
