//go:build unix

package ptywrighttest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

// A bash and a python3 REPL started from presets: Run returns the output
// and the status, and the session is the test's, closed at its end.
func TestStartShellAndRun(t *testing.T) {
	sh := ptywrighttest.StartShell(t, ptywright.PresetBash, ptywright.Options{})
	res := ptywrighttest.Run(t, sh, "echo hello; (exit 5)")
	require.Equal(t, ptywright.RunResult{Output: "hello\n", Status: 5}, res)
	require.Equal(t, "5", *ptywrighttest.ExpectPrompt(t, sh).Outcome.Capture)

	py := ptywrighttest.StartShell(t, ptywright.PresetPython, ptywright.Options{})
	require.Equal(t, ptywright.RunResult{Output: "6\n"}, ptywrighttest.Run(t, py, "2 * 3"))
}
