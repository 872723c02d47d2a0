//go:build unix

package ptywright_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// bashEcho starts a bash with no rc files and the prompt "$ ".
func bashEcho(t *testing.T) *ptywright.Session {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not installed:", err)
	}
	s := start(t, ptywright.Options{
		Program: bash,
		Args:    []string{"--norc", "--noprofile"},
		Env:     map[string]string{"PS1": "$ ", "INPUTRC": "/dev/null", "TERM": "xterm", "HISTFILE": "/dev/null"},
	})
	waitFor(t, s, ptywright.ContainsText("$ "))
	return s
}

// A wait after a command typed into a real bash, with the input's echo
// left out, answers on the command's output line, never on the command
// line that quotes the same text: 50 times in a row, with the prompt
// scrolling up the screen, the command sent in one write or as text then
// Enter, and longer than a row.
func TestWaitExcludesTheInputsEcho(t *testing.T) {
	s := bashEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	perform := func(a ptywright.Action) ptywright.Written {
		t.Helper()
		w, err := s.Perform(ctx, a)
		require.NoError(t, err)
		return w
	}
	for i := range 50 {
		mark := fmt.Sprintf("MARK%03d", i)
		cmd := "echo " + mark
		if i%2 == 0 {
			cmd = "sleep 0.01; " + cmd // the output comes well after the echo
		}
		if i%7 == 3 {
			cmd = ": " + strings.Repeat("x", 80) + "; " + cmd // wraps onto the next row
		}
		var w ptywright.Written
		if i%3 == 1 {
			perform(ptywright.Text(cmd))
			w = perform(ptywright.Press(ptywright.KeyEnter))
		} else {
			w = perform(ptywright.Text(cmd + "\r"))
		}
		res, err := s.Wait(ctx, ptywright.ContainsText(mark), ptywright.AfterInput(w))
		require.NoError(t, err, "iteration %d", i)
		lines := res.Snapshot.Lines()
		row := *res.Outcome.Row
		require.Equal(t, mark, lines[row], "iteration %d: matched on row %d, not the output line:\n%s", i, row, res.Snapshot.PlainText)
		_, err = s.Wait(ctx, ptywright.ScreenRegex(`(?m)^\$ \z`), ptywright.AfterInput(w))
		require.NoError(t, err, "iteration %d: the prompt", i)
	}
}

// Without the echo left out, the same wait answers on the command line:
// what ExcludeEcho is for.
func TestWaitWithoutExcludeEchoMatchesTheEcho(t *testing.T) {
	s := bashEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := s.Perform(ctx, ptywright.Text("sleep 0.01; echo MARK\r"))
	require.NoError(t, err)
	res, err := s.Wait(ctx, ptywright.ContainsText("MARK"), ptywright.After(w.Sequence))
	require.NoError(t, err)
	require.Equal(t, "$ sleep 0.01; echo MARK", res.Snapshot.Lines()[*res.Outcome.Row])
	last, ok := s.LastInput()
	require.True(t, ok)
	require.Equal(t, w.Sequence, last.Sequence)
	require.Equal(t, "sleep 0.01; echo MARK", last.Echo.Text)
}
