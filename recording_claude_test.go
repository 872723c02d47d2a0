package ptywright_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/internal/fakeanthropic"
)

// claudeTurnCast is one real Claude Code turn against the fake API: start at
// a seeded prompt, type a prompt, the spinner, the streamed answer, the
// settled screen. Markers name the moments: ready, submitted, answered.
// PTYWRIGHT_RECORD=1 records it again (it needs scripts/install-tuis.sh);
// otherwise the committed file is used.
var claudeTurnCast = filepath.Join("testdata", "recordings", "claude_code_turn.cast")

const claudeAnswer = "Hello from the fake model. This answer was streamed for a ptywright recording."

func TestRecordClaudeCodeTurn(t *testing.T) {
	if rerecording() {
		recordClaudeTurn(t, recordingPath(t, "claude_code_turn.cast"))
	}
	data, err := os.ReadFile(claudeTurnCast)
	require.NoError(t, err)
	require.Less(t, len(data), 200*1024, "the recording stays small enough to commit")
	require.NotContains(t, string(data), fakeanthropic.TestAPIKey[len(fakeanthropic.TestAPIKey)-20:], "no part of the API key is recorded")

	rec := readRecording(t, claudeTurnCast)
	var marks []string
	for _, ev := range rec.Events {
		if ev.Type == asciicast.EventMarker {
			marks = append(marks, ev.Data)
		}
	}
	require.Equal(t, []string{"ready", "submitted", "answered"}, marks)
	require.Equal(t, rec.Events[len(rec.Events)-1], asciicast.Event{Time: rec.Duration(), Type: asciicast.EventMarker, Data: "answered"},
		"the recording ends on the settled answer")

	ready := replayUntil(t, rec, "submitted")
	require.Contains(t, ready.PlainText, "❯\u00a0", "the live prompt before the turn")
	final := replayUntil(t, rec, "")
	require.Contains(t, strings.Join(strings.Fields(final.PlainText), " "), claudeAnswer)
	require.Contains(t, final.PlainText, "❯ hello there", "the submitted prompt's echo")
}

// recordClaudeTurn records the turn with the real CLI. The HOME is seeded as
// testdata/fixtures/claude_code/CAPTURES.md describes, so the session opens
// straight at the prompt.
func recordClaudeTurn(t *testing.T, path string) {
	_, file, _, _ := runtime.Caller(0)
	claude := filepath.Join(filepath.Dir(file), ".cache", "tuis", "node_modules", ".bin", "claude")
	if dir := os.Getenv("PTYWRIGHT_TUI_DIR"); dir != "" {
		claude = filepath.Join(dir, "node_modules", ".bin", "claude")
	}
	_, err := os.Stat(claude)
	require.NoError(t, err, "re-recording needs Claude Code: run scripts/install-tuis.sh")

	srv := fakeanthropic.New(t, []fakeanthropic.Rule{{
		When:  fakeanthropic.Match{Prompt: "hello there"},
		Reply: fakeanthropic.Reply{Text: claudeAnswer, StartDelay: 2 * time.Second, Delay: 40 * time.Millisecond},
	}})
	home, project := t.TempDir(), t.TempDir()
	seed, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"lastOnboardingVersion":  "2.1.330",
		"theme":                  "dark",
		"customApiKeyResponses": map[string]any{
			"approved": []string{fakeanthropic.TestAPIKey[len(fakeanthropic.TestAPIKey)-20:]}, "rejected": []string{}},
		"hasSeenAutoDefaultNotice": true,
		"lastReleaseNotesSeen":     "2.1.330",
		"projects":                 map[string]any{project: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".claude.json"), seed, 0o600))

	// env -i: the CLI sees only what the captures used, not the test's environment.
	args := []string{"-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	args = append(append(args, srv.Env()...), claude)
	s := start(t, ptywright.Options{
		Program:    "env",
		Args:       args,
		Dir:        project,
		Size:       ptywright.Size{Rows: 24, Cols: 80},
		RecordPath: path,
	})
	wait := func(m ptywright.Matcher) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := s.Wait(ctx, m); err != nil {
			t.Fatalf("claude: %v\n%s", err, s.Snapshot(ptywright.SnapshotOptions{}).PlainText)
		}
	}
	wait(ptywright.All(ptywright.ContainsText("❯\u00a0"), ptywright.ContainsText("mode on"), ptywright.ScreenStable(time.Second)))
	require.NoError(t, s.Mark("ready"))
	send(t, s, ptywright.Text("hello there"))
	wait(ptywright.ContainsText("hello there"))
	send(t, s, ptywright.Press(ptywright.KeyEnter))
	require.NoError(t, s.Mark("submitted"))
	wait(ptywright.ContainsText("esc to interrupt"))
	wait(ptywright.All(ptywright.ScreenRegex(`✻ \S+ for \d+s`), ptywright.ScreenStable(1500*time.Millisecond)))
	live := markAt(t, s, "answered")
	require.NoError(t, s.Close())
	require.Equal(t, comparable(live), comparable(replayUntil(t, readRecording(t, path), "answered")),
		"the recording replays to the live screen")
	// Only the events up to the last marker matter; what Close makes the
	// CLI print afterwards is cut so the recording ends on the answer.
	rec := readRecording(t, path)
	for i := len(rec.Events) - 1; i >= 0; i-- {
		if rec.Events[i].Type == asciicast.EventMarker {
			rec.Events = rec.Events[:i+1]
			break
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = rec.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
