package ptywright_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// A wait whose context has no deadline gives up after the default (here
// shortened) with ErrTimeout, and the error's text names the matcher and
// shows the screen's last rows.
func TestWaitWithoutDeadlineGetsTheDefault(t *testing.T) {
	restore := ptywright.SetDefaultWaitTimeout(200 * time.Millisecond)
	defer restore()
	s := sh(t, "i=1; while [ $i -le 12 ]; do echo row$i; i=$((i+1)); done; echo 'tab\there'; sleep 30")
	waitFor(t, s, ptywright.ContainsText("here"))
	_, err := s.Wait(context.Background(), ptywright.ContainsText("never printed"))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	var we *ptywright.WaitError
	require.ErrorAs(t, err, &we)
	require.Equal(t, ptywright.ContainsText("never printed"), we.Matcher)
	msg := err.Error()
	first, rest, _ := strings.Cut(msg, "\n")
	require.Contains(t, first, `wait for {"type":"contains_text","value":"never printed"}: ptywright: timed out after `)
	require.Contains(t, rest, "screen (24x80, cursor row 13 col 0):\n")
	require.Contains(t, rest, "\t   (rows 0-4 not shown)\n\t  5|row6\n")
	require.Contains(t, rest, "\t 12|tab     here\n")
	require.NotContains(t, rest, "|row5\n")
	require.True(t, strings.HasSuffix(rest, "(rows 13-23 blank)"), rest)
}

// A deadline of the caller's own is kept, however far.
func TestWaitKeepsTheCallersDeadline(t *testing.T) {
	restore := ptywright.SetDefaultWaitTimeout(time.Nanosecond)
	defer restore()
	s := sh(t, "sleep 0.2; echo late")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Wait(ctx, ptywright.ContainsText("late"))
	require.NoError(t, err)
}
