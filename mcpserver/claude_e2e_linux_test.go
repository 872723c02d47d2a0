package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/fakeanthropic"
	"ptywright/internal/tuitest"
)

// buildPtywright builds the CLI into a temporary directory.
func buildPtywright(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ptywright")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/ptywright").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// The real Claude Code, started with --mcp-config naming `ptywright mcp`,
// drives a bash through the session tools as the fake model tells it to;
// the tool results that reach the model carry the screen, and when Claude
// Code exits no process of ours is left.
func TestClaudeCodeDrivesBashOverMCP(t *testing.T) {
	claude := tuitest.ClaudeBinary(t)
	ptw := buildPtywright(t)

	tool := func(name string, input map[string]any) fakeanthropic.ToolUse {
		raw, err := json.Marshal(input)
		require.NoError(t, err)
		return fakeanthropic.ToolUse{Name: "mcp__ptywright__" + name, Input: raw}
	}
	after := func(name string) fakeanthropic.Match {
		return fakeanthropic.Match{ToolResult: "mcp__ptywright__" + name}
	}
	const done = "Done: the shell printed mcp-42."
	// Sessions are numbered per client from s1: the fake model can name
	// the one it started without reading the result.
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		{When: fakeanthropic.Match{Prompt: "drive a shell"}, Reply: fakeanthropic.Reply{Text: "Starting bash.", ToolUses: []fakeanthropic.ToolUse{
			tool("session_start", map[string]any{"program": "bash", "args": []string{"--norc", "--noprofile"}, "env": map[string]string{"PS1": "mcp$ "}}),
		}}},
		{When: after("session_start"), Reply: fakeanthropic.Reply{Text: "Typing.", ToolUses: []fakeanthropic.ToolUse{
			tool("session_send", map[string]any{"session": "s1", "text": "echo mcp-$((6*7))", "keys": []string{"enter"}}),
		}}},
		{When: after("session_send"), Reply: fakeanthropic.Reply{Text: "Waiting.", ToolUses: []fakeanthropic.ToolUse{
			tool("session_wait", map[string]any{"session": "s1", "regex": `(?m)^mcp-42`, "timeout_ms": 20000}),
		}}},
		{When: after("session_wait"), Reply: fakeanthropic.Reply{Text: "Reading.", ToolUses: []fakeanthropic.ToolUse{
			tool("session_snapshot", map[string]any{"session": "s1"}),
		}}},
		{When: after("session_snapshot"), Reply: fakeanthropic.Reply{Text: done}},
	})

	work, home := t.TempDir(), t.TempDir()
	config := filepath.Join(t.TempDir(), "mcp.json")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"ptywright": map[string]any{"type": "stdio", "command": ptw, "args": []string{"mcp"}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, cfg, 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "please drive a shell",
		"--mcp-config", config, "--strict-mcp-config", "--allowedTools", "mcp__ptywright")
	cmd.Dir = work
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}, srv.Env()...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "claude: %s", out)
	require.Contains(t, string(out), done)

	results := map[string]string{}
	for _, r := range srv.MessagesRequests() {
		if r.Messages == nil {
			continue
		}
		if tr := r.Messages.LastToolResult(); tr != nil {
			if use := r.Messages.ToolUse(tr.ToolUseID); use != nil {
				require.False(t, tr.IsError, "%s failed: %s", use.Name, tr.ResultText())
				results[strings.TrimPrefix(use.Name, "mcp__ptywright__")] = tr.ResultText()
			}
		}
	}
	// Claude Code 2.1.330 hands the model a tool's structured content
	// (as JSON) when there is one, and its text rendering otherwise:
	// either way the screen must be in it, newlines and all.
	screen := "mcp$ echo mcp-$((6*7))\nmcp-42\nmcp$"
	for _, name := range []string{"session_start", "session_send", "session_wait", "session_snapshot"} {
		require.Contains(t, results, name, "no result of %s reached the model", name)
		t.Logf("%s → the model: %s", name, results[name])
	}
	require.Contains(t, readable(t, results["session_start"]), "s1")
	require.Contains(t, readable(t, results["session_send"]), "sent")
	require.Contains(t, readable(t, results["session_wait"]), "matched")
	require.Contains(t, readable(t, results["session_wait"]), screen)
	require.Contains(t, readable(t, results["session_snapshot"]), screen)

	// Nothing is left: not bash, not the server.
	m := regexp.MustCompile(`pid"?:? ?(\d+)`).FindStringSubmatch(results["session_start"])
	require.NotNil(t, m, results["session_start"])
	bash, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(bash, 0), syscall.ESRCH) && len(processesOf(t, ptw)) == 0
	}, 10*time.Second, 20*time.Millisecond, "left behind: bash %d alive=%v, ptywright mcp %v",
		bash, !errors.Is(syscall.Kill(bash, 0), syscall.ESRCH), processesOf(t, ptw))
}

// processesOf lists the live processes running the executable at path.
func processesOf(t *testing.T, path string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == path {
			pids = append(pids, pid)
		}
	}
	return pids
}

// readable returns a tool result as the model would read it: a JSON object
// (structured content) as its members, "name: value" a line, strings
// unquoted; text as is.
func readable(t *testing.T, result string) string {
	t.Helper()
	var obj map[string]any
	if json.Unmarshal([]byte(result), &obj) != nil {
		return result
	}
	var b strings.Builder
	for k, v := range obj {
		if s, ok := v.(string); ok {
			b.WriteString(k + ": " + s + "\n")
			continue
		}
		j, err := json.Marshal(v)
		require.NoError(t, err)
		b.WriteString(k + ": " + string(j) + "\n")
	}
	return b.String()
}
