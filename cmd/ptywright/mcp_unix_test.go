//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// `ptywright mcp` serves a real client over its stdin and stdout: the
// built-in plugins are listed, a shell runs, and when the client goes the
// process exits 0 having reaped the shell.
func TestMCPCommandServesAndReaps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(pwBin, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)

	require.Equal(t, "ptywright", cs.InitializeResult().ServerInfo.Name)
	require.Equal(t, version, cs.InitializeResult().ServerInfo.Version)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plugin_describe", Arguments: map[string]any{"plugin": "claude-code"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	require.Contains(t, res.Content[0].(*mcp.TextContent).Text, "send_prompt", "the embedded built-ins are there")

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_start", Arguments: map[string]any{"program": "sh", "args": []string{"-c", "echo cli-ready; exec cat"}}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	var started struct {
		Session string `json:"session"`
		Pid     int    `json:"pid"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &started))
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_wait", Arguments: map[string]any{"session": started.Session, "text": "cli-ready"}})
	require.NoError(t, err)
	require.Contains(t, res.Content[0].(*mcp.TextContent).Text, "Matched")

	// Closing the client closes the server's stdin; CommandTransport then
	// waits for the process to exit (and would signal it after a grace
	// period: exit code 0 says it ended by itself).
	require.NoError(t, cs.Close())
	require.NotNil(t, cmd.ProcessState)
	require.Equal(t, 0, cmd.ProcessState.ExitCode(), "stderr: %s", stderr.String())
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(started.Pid, 0), syscall.ESRCH)
	}, 10*time.Second, 10*time.Millisecond, "the shell outlived ptywright mcp")
}

func TestMCPCommandUsage(t *testing.T) {
	res := runBinary(t, nil, "mcp", "extra")
	require.Equal(t, exitUsage, res.code)
	require.Contains(t, res.stderr, `ptywright mcp: unexpected argument "extra"`)

	res = runBinary(t, nil, "mcp", "--plugin", "/no/such/manifest.toml")
	require.Equal(t, exitFailure, res.code)
	require.Contains(t, res.stderr, "mcp: --plugin /no/such/manifest.toml")

	res = runBinary(t, nil, "mcp", "--help")
	require.Equal(t, 0, res.code)
	require.Contains(t, res.stdout, "Usage: ptywright mcp [--plugin MANIFEST]...")
	require.Contains(t, res.stdout, "claude mcp add ptywright -- ptywright mcp")

	// A client that sends nothing and hangs up is no error.
	res = runBinary(t, strings.NewReader(""), "mcp")
	require.Equal(t, 0, res.code, res.stderr)
}
