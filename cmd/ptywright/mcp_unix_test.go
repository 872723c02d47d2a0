//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strconv"
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

// `ptywright mcp` survives lines that are no MCP message (not exiting at
// the first): `hello`, `[]`, `null`, a batch and a line over
// 16 MiB are each answered with a JSON-RPC error of id null, and then
// tools/list answers and the session started before them still runs.
func TestMCPCommandSurvivesBadFrames(t *testing.T) {
	cmd := exec.Command(pwBin, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill() // Best effort: the test failed first.
			_ = cmd.Wait()
		}
	})
	out := bufio.NewReader(stdout)
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	read := func() message {
		t.Helper()
		for {
			line, err := out.ReadBytes('\n')
			require.NoError(t, err, "stderr:\n%s", stderr.String())
			var m message
			require.NoError(t, json.Unmarshal(line, &m), "%s", line)
			if m.Method == "" {
				return m
			}
		}
	}
	call := func(id int, method string, params any) json.RawMessage {
		t.Helper()
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		require.NoError(t, err)
		_, err = in.Write(append(b, '\n'))
		require.NoError(t, err)
		m := read()
		require.Equal(t, strconv.Itoa(id), string(m.ID))
		require.Nil(t, m.Error, "%s", method)
		return m.Result
	}
	call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}})
	_, err = io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	var started struct {
		StructuredContent struct {
			Session string `json:"session"`
		} `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(call(2, "tools/call", map[string]any{"name": "session_start", "arguments": map[string]any{"program": "sh", "args": []string{"-c", "echo alive; exec cat"}}}), &started))
	require.NotEmpty(t, started.StructuredContent.Session)

	bad := []struct {
		line string
		code int64
	}{
		{"hello", -32700},
		{"[]", -32600},
		{"null", -32600},
		{`[{"jsonrpc":"2.0","id":90,"method":"tools/list"}]`, -32600},
		{`{"jsonrpc":"2.0","id":91,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 16<<20) + `"}}`, -32600},
	}
	go func() {
		for _, b := range bad {
			if _, err := io.WriteString(in, b.line+"\n"); err != nil {
				return
			}
		}
	}()
	for _, b := range bad {
		m := read()
		require.Equal(t, "null", string(m.ID), "%.40s", b.line)
		require.NotNil(t, m.Error, "%.40s", b.line)
		require.Equal(t, b.code, m.Error.Code, "%.40s: %s", b.line, m.Error.Message)
	}
	require.Contains(t, string(call(3, "tools/list", nil)), `"session_start"`)
	call(4, "tools/call", map[string]any{"name": "session_send", "arguments": map[string]any{"session": started.StructuredContent.Session, "text": "still-here", "keys": []string{"enter"}}})
	res := call(5, "tools/call", map[string]any{"name": "session_wait", "arguments": map[string]any{"session": started.StructuredContent.Session, "text": "still-here"}})
	require.Contains(t, string(res), `"matched":true`)
	require.Contains(t, string(res), "alive")

	require.NoError(t, in.Close())
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
}
