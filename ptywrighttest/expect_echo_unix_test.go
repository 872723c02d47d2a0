//go:build unix

package ptywrighttest_test

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/ptywrighttest"
)

// After Send, ExpectText answers on the command's output line, not on the
// echoed command line that quotes the same text: 50 times in a row in a
// real bash, the output coming well after the echo. IncludeEcho gives the
// echo back.
func TestExpectAfterSendSkipsTheEcho(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "bash is not installed")
	s := ptywrighttest.Start(t, ptywright.Options{Program: bash, Args: []string{"--norc", "--noprofile"},
		Env: map[string]string{"PS1": "$ ", "INPUTRC": "/dev/null", "HISTFILE": "/dev/null"}})
	prompt := ptywright.ScreenRegex(`(?m)^\$ \z`)
	ptywrighttest.Expect(t, s, prompt)
	for i := range 50 {
		mark := fmt.Sprintf("MARK%03d", i)
		ptywrighttest.Send(t, s, ptywright.Text("sleep 0.01; echo "+mark+"\r"))
		res := ptywrighttest.ExpectText(t, s, mark)
		require.Equal(t, mark, res.Snapshot.Lines()[*res.Outcome.Row], "iteration %d:\n%s", i, res.Snapshot.PlainText)
		ptywrighttest.Expect(t, s, prompt)
	}
	ptywrighttest.Send(t, s, ptywright.Text("sleep 0.01; echo LAST"), ptywright.Press(ptywright.KeyEnter))
	res := ptywrighttest.ExpectText(t, s, "LAST", ptywrighttest.IncludeEcho())
	require.Equal(t, "$ sleep 0.01; echo LAST", res.Snapshot.Lines()[*res.Outcome.Row])
}
