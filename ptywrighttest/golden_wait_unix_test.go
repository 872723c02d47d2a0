//go:build unix

package ptywrighttest_test

import (
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

// A python3 REPL's goldens pass 50 times of 50 with no wait or sleep in
// the test: RequireScreen right after the start (the prompt comes when
// python is ready) and right after each statement (the statement clears
// the screen and prints, then the prompt comes back: the same golden each
// time, which the screen from before the input must not answer).
func TestRequireScreenWaitsForAPythonREPL(t *testing.T) {
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 is not installed")
	passes := 0
	for range 5 {
		s := ptywrighttest.Start(t, ptywright.Options{Program: python, Args: []string{"-q"}, Size: small,
			Env: map[string]string{"PYTHON_BASIC_REPL": "1", "PYTHONSTARTUP": ""}})
		ptywrighttest.RequireScreen(t, s, "python_start")
		for range 10 {
			ptywrighttest.Send(t, s, ptywright.Text(`print("\x1b[H\x1b[2J" + str(6 * 7))`+"\r"))
			ptywrighttest.RequireScreen(t, s, "python_answer")
			passes++
		}
		require.NoError(t, s.Close())
	}
	require.Equal(t, 50, passes)
}

// A program slower than the settle time to draw anything, or to answer an
// input it does not echo, is waited for: an empty screen, or the one from
// before the input, has not settled on an answer.
func TestRequireScreenWaitsForASlowProgram(t *testing.T) {
	s := ptywrighttest.Start(t, ptywright.Options{Program: "/bin/sh", Size: small,
		Args: []string{"-c", `stty -echo; sleep 0.3; printf 'name? '; read x; sleep 0.3; echo "hello $x"; exec cat`}})
	settle := ptywrighttest.SettleFor(50 * time.Millisecond)
	ptywrighttest.RequireScreen(t, s, "slow_prompt", settle)
	ptywrighttest.Send(t, s, ptywright.Text("ada\r"))
	ptywrighttest.RequireScreen(t, s, "slow_answer", settle)
}
