//go:build e2e

// These tests run the real Claude Code (installed by scripts/install-tuis.sh)
// against the fake in print mode, to prove the fake speaks the protocol the
// CLI expects. Run with: go test -tags e2e ./internal/fakeanthropic/
package fakeanthropic_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/fakeanthropic"
	"ptywright/internal/tuitest"
)

// claudeBinary is the CLI scripts/install-tuis.sh installed: these
// tests are asked for by name (-tags e2e), so a missing one fails them.
func claudeBinary(t *testing.T) string {
	t.Helper()
	bin := tuitest.ClaudePath(t)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("claude not installed at %s (run scripts/install-tuis.sh): %v", bin, err)
	}
	return bin
}

func runClaude(t *testing.T, srv *fakeanthropic.Server, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + t.TempDir(),
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}, srv.Env()...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestRealClaudePrintMode(t *testing.T) {
	srv := fakeanthropic.New(t, []fakeanthropic.Rule{
		{When: fakeanthropic.Match{Prompt: "hello"}, Reply: fakeanthropic.Reply{Text: "Hello from the fake model."}},
		{When: fakeanthropic.Match{Prompt: "make file"}, Reply: fakeanthropic.Reply{Text: "Creating it.",
			ToolUses: []fakeanthropic.ToolUse{fakeanthropic.BashTool("echo hi > file.txt", "Write file.txt")}}},
		{When: fakeanthropic.Match{ToolResult: "Bash"}, Reply: fakeanthropic.Reply{Text: "Done: file.txt written."}},
		{When: fakeanthropic.Match{Prompt: "fail"}, Reply: fakeanthropic.Reply{Error: &fakeanthropic.APIError{
			Status: 400, Type: "invalid_request_error", Message: "scripted failure"}}},
	})

	t.Run("text answer", func(t *testing.T) {
		out, err := runClaude(t, srv, t.TempDir(), "-p", "hello there")
		require.NoError(t, err, out)
		require.Contains(t, out, "Hello from the fake model.")
	})

	t.Run("bash tool runs and its result comes back", func(t *testing.T) {
		dir := t.TempDir()
		out, err := runClaude(t, srv, dir, "-p", "please make file", "--allowedTools", "Bash")
		require.NoError(t, err, out)
		require.Contains(t, out, "Done: file.txt written.")
		b, err := os.ReadFile(filepath.Join(dir, "file.txt"))
		require.NoError(t, err)
		require.Equal(t, "hi\n", string(b))
		var sawResult bool
		for _, r := range srv.MessagesRequests() {
			if tr := r.Messages.LastToolResult(); tr != nil && !tr.IsError {
				sawResult = true
			}
		}
		require.True(t, sawResult, "no tool_result reached the fake")
	})

	t.Run("api error is reported", func(t *testing.T) {
		out, err := runClaude(t, srv, t.TempDir(), "-p", "fail now")
		require.Error(t, err)
		require.Contains(t, out, "scripted failure")
	})
}
