//go:build linux || darwin

package ptywright_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// In cooked mode, Backspace over "é" erases the whole character, as in
// tmux and xterm (the PTY has IUTF8): the line the program reads holds
// only what follows, not a stray 0xc3 byte.
func TestCookedBackspaceErasesAWholeUTF8Character(t *testing.T) {
	tuitest.NoLeak(t)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh",
		Args: []string{"-c", `printf 'ready> '; read -r line; printf '%s' "$line" | od -An -tx1 | tr -d ' \n'; printf '<end\n'`}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	waitFor(t, s, ptywright.ContainsText("ready> "))
	ctx := context.Background()
	_, err = s.Perform(ctx, ptywright.Text("aé"))
	require.NoError(t, err)
	_, err = s.Perform(ctx, ptywright.Press(ptywright.KeyBackspace))
	require.NoError(t, err)
	_, err = s.Perform(ctx, ptywright.Text("x\r"))
	require.NoError(t, err)
	waitFor(t, s, ptywright.ContainsText("<end"))
	require.Contains(t, s.Screen().PlainText(), "6178<end", "the line read is \"ax\": the erase took both bytes of é")
}
