package ptywright_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// A process_exited wait says how the child ended: its code, or the signal.
func TestProcessExitedCarriesTheExitStatus(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, "exit 3")
	res := waitFor(t, s, ptywright.ProcessExited())
	require.NotNil(t, res.Outcome.Exit)
	require.Equal(t, 3, res.Outcome.Exit.Code)
	require.Empty(t, res.Outcome.Exit.Signal)
	require.Contains(t, tuitest.MustJSON(res.Outcome), `"exit":{"code":3}`)

	k := sh(t, "echo up; sleep 30")
	waitFor(t, k, ptywright.ContainsText("up"))
	require.NoError(t, k.Kill())
	res = waitFor(t, k, ptywright.ProcessExited())
	require.NotNil(t, res.Outcome.Exit)
	require.Equal(t, -1, res.Outcome.Exit.Code)
	require.Equal(t, string(ptywright.SignalKill), res.Outcome.Exit.Signal)
	st, ok := k.ExitStatus()
	require.True(t, ok)
	require.Equal(t, string(ptywright.SignalKill), st.Signal)

	// Nested, the branch that fired carries it too.
	e := sh(t, "exit 5")
	res = waitFor(t, e, ptywright.Any(ptywright.ContainsText("never"), ptywright.ProcessExited()))
	require.Equal(t, 5, res.Outcome.Matched[0].Exit.Code)
}
