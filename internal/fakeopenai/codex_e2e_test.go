//go:build codex_e2e

// The real Codex CLI driven through ptywright's own PTY Session against the
// fake API: the groundwork of the codex plugin's end-to-end test. It needs
// codex from scripts/install-codex.sh (or PTYWRIGHT_CODEX) and is opt-in:
//
//	bash scripts/install-codex.sh && go test -tags codex_e2e -run Codex ./internal/fakeopenai/

package fakeopenai_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/fakeopenai"
	"ptywright/internal/tuitest"
)

// codexPath finds the codex launcher: PTYWRIGHT_CODEX, else the repository's
// .cache/tuis install. A missing codex fails the test: this file only builds
// when asked for.
func codexPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PTYWRIGHT_CODEX"); p != "" {
		return p
	}
	dir := os.Getenv("PTYWRIGHT_TUI_DIR")
	if dir == "" {
		wd, err := os.Getwd()
		require.NoError(t, err)
		dir = filepath.Join(wd, "..", "..", ".cache", "tuis")
	}
	p := filepath.Join(dir, "node_modules", ".bin", "codex")
	_, err := os.Stat(p)
	require.NoError(t, err, "codex is not installed: run scripts/install-codex.sh")
	return p
}

// startCodex runs codex in a fresh HOME against srv and waits for its prompt.
func startCodex(t *testing.T, srv *fakeopenai.Server) (*ptywright.Session, string) {
	t.Helper()
	// Codex refuses to create its helper binaries under the temp dir and
	// prints a warning; a HOME elsewhere keeps the start-up clean.
	home, err := os.MkdirTemp("/var/tmp", "ptywright-codex-e2e-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	work := filepath.Join(home, "work")
	require.NoError(t, os.MkdirAll(work, 0o755))
	codexHome := filepath.Join(home, ".codex")
	require.NoError(t, fakeopenai.CodexConfig{BaseURL: srv.BaseURL(), Workdir: work}.Write(codexHome))

	s, err := ptywright.Start(ptywright.Options{
		Program: codexPath(t),
		Args:    []string{"--no-daemon", "--strict-config"},
		Dir:     work,
		Env: map[string]string{
			"HOME": home, "CODEX_HOME": codexHome, fakeopenai.APIKeyEnv: "sk-test-0000000000000000",
			"LANG": "C.UTF-8",
		},
		Size: ptywright.Size{Rows: 24, Cols: 80},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Close() // Best effort: what matters here is what is left running.
		if left, _ := tuitest.ProcessesOf(home); len(left) > 0 {
			t.Errorf("processes of the run outlived Close:\n\t%s", strings.Join(left, "\n\t"))
		}
	})
	wait(t, s, ptywright.ContainsText("Ask Codex to do anything"), 60*time.Second)
	return s, work
}

func wait(t *testing.T, s *ptywright.Session, m ptywright.Matcher, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, err := s.Wait(ctx, m)
	require.NoError(t, err, "screen:\n%s", s.Screen().PlainText())
}

// submit is the send_prompt intent: bracketed paste, then Enter.
func submit(t *testing.T, s *ptywright.Session, prompt string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.Send(ctx, ptywright.BracketedPaste(prompt)))
	require.NoError(t, s.Send(ctx, ptywright.Press(ptywright.KeyEnter)))
}

var sentinel = regexp.MustCompile(regexp.QuoteMeta(fakeopenai.SentinelOpen) + `(.*?)` + regexp.QuoteMeta(fakeopenai.SentinelClose))

func TestCodexTurnCompletesAndAnswerIsExtracted(t *testing.T) {
	srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	s, _ := startCodex(t, srv)

	submit(t, s, "What is the "+fakeopenai.DemoAnswer+"?")
	wait(t, s, ptywright.All(ptywright.ContainsText("Worked for"), ptywright.ContainsText(fakeopenai.SentinelClose)), 60*time.Second)
	m := sentinel.FindStringSubmatch(s.Screen().PlainText())
	require.NotNil(t, m)
	require.Equal(t, "42", m[1])

	turn, err := srv.WaitRequest(context.Background(), func(r fakeopenai.Request) bool { return r.Rule == "answer" })
	require.NoError(t, err)
	require.True(t, turn.HasTool("exec_command"), "tools: %v", turn.Tools)
	require.Equal(t, "Bearer sk-test-0000000000000000", turn.Header.Get("Authorization"))
}

func TestCodexToolCallWaitsForApprovalThenCompletes(t *testing.T) {
	srv := fakeopenai.NewServer(fakeopenai.DemoScript(), fakeopenai.Options{})
	t.Cleanup(srv.Close)
	s, work := startCodex(t, srv)

	submit(t, s, "Use the "+fakeopenai.DemoTool+" now")
	wait(t, s, ptywright.ContainsText("Would you like to run the following command?"), 60*time.Second)
	require.True(t, strings.HasPrefix(s.Screen().Snapshot(false).Title, "[ "), "title while awaiting approval: %q", s.Screen().Snapshot(false).Title)
	_, err := os.Stat(filepath.Join(work, fakeopenai.DemoToolFile))
	require.ErrorIs(t, err, os.ErrNotExist, "the command ran before approval")

	// A key that lands within ~10 ms of the dialog's first paint is dropped
	// (measured on 0.169.0: 0 ms failed every time, 10 ms passed), so the
	// approve intent waits for the screen to settle first.
	wait(t, s, ptywright.ScreenStable(200*time.Millisecond), 10*time.Second)
	require.NoError(t, s.Send(context.Background(), ptywright.Text("y")))
	wait(t, s, ptywright.All(ptywright.ContainsText("Worked for"), ptywright.ContainsText("tool-ok")), 60*time.Second)
	got, err := os.ReadFile(filepath.Join(work, fakeopenai.DemoToolFile))
	require.NoError(t, err)
	require.Equal(t, "approved\n", string(got))

	cont, err := srv.WaitRequest(context.Background(), func(r fakeopenai.Request) bool { return r.Rule == "tool-done" })
	require.NoError(t, err)
	require.Contains(t, cont.ToolOutputs()[0].OutputText(), "Process exited with code 0")
}
