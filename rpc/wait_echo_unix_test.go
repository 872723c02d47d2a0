//go:build unix

package rpc

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// session.wait with exclude_echo, after a command typed into a real bash,
// answers on the command's output line, not on the command line that
// quotes the same text; without after_sequence, or with a sequence no
// input began at, it is -32602.
func TestSessionWaitExcludeEcho(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not installed:", err)
	}
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	id := c.create(map[string]any{"program": bash, "args": []string{"--norc", "--noprofile"},
		"env": map[string]string{"PS1": "$ ", "INPUTRC": "/dev/null", "HISTFILE": "/dev/null"}})
	c.wait(id, containsText("$ "))
	for i := range 10 {
		mark := fmt.Sprintf("MARK%02d", i)
		var in inputResult
		c.do("session.input", map[string]any{"session": id, "action": map[string]any{"type": "text", "value": "sleep 0.01; echo " + mark + "\r"}}, &in)
		var res waitResult
		c.do("session.wait", map[string]any{"session": id, "matcher": containsText(mark), "after_sequence": in.Sequence,
			"exclude_echo": true, "timeout_ms": patience.Milliseconds()}, &res)
		lines := strings.Split(res.Snapshot.PlainText, "\n")
		require.Equal(t, mark, lines[*res.Outcome.Row], "iteration %d:\n%s", i, res.Snapshot.PlainText)
		c.do("session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "screen_regex", "value": `(?m)^\$ \z`},
			"after_sequence": in.Sequence, "exclude_echo": true, "timeout_ms": patience.Milliseconds()}, &res)
	}
	e := c.callErr("session.wait", map[string]any{"session": id, "matcher": containsText("x"), "exclude_echo": true})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "exclude_echo: needs after_sequence")
	e = c.callErr("session.wait", map[string]any{"session": id, "matcher": containsText("x"), "after_sequence": 999999, "exclude_echo": true})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "began at sequence 999999")
}
