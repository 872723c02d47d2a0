//go:build unix

package ptywright_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// Readline, in a real bash, reads the modified arrows as xterm sends them:
// Alt+Left moves back a word (its built-in binding of ESC [ 1 ; 3 D), and
// Ctrl+Left too, with no inputrc to help.
func TestModifiedArrowsMoveByWordsInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not installed:", err)
	}
	s := start(t, ptywright.Options{
		Program: bash,
		Args:    []string{"--norc", "--noprofile"},
		Env:     map[string]string{"PS1": "$ ", "INPUTRC": "/dev/null", "TERM": "xterm"},
	})
	waitFor(t, s, ptywright.ContainsText("$ "))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, a := range []ptywright.Action{
		ptywright.Text("echo one two three"),
		ptywright.Press(ptywright.KeyLeft.With(ptywright.ModAlt)),
		ptywright.Text("A"),
		ptywright.Press(ptywright.Key("ctrl_left")),
		ptywright.Press(ptywright.Key("ctrl_left")),
		ptywright.Text("B"),
		ptywright.Press(ptywright.KeyEnd),
		ptywright.Text("\r"),
	} {
		require.NoError(t, s.Send(ctx, a))
	}
	waitFor(t, s, ptywright.ScreenRegex(`(?m)^one Btwo Athree$`))
}
