package ptywright_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/internal/tuitest"
)

// recordEnv re-records the recordings committed under testdata/recordings
// when set to 1:
//
//	PTYWRIGHT_RECORD=1 go test -run 'TestRecord' .
//
// Otherwise the tests record into a temporary directory and the committed
// files are only read.
const recordEnv = "PTYWRIGHT_RECORD"

func rerecording() bool { return os.Getenv(recordEnv) == "1" }

// recordingPath returns where a test records name: the committed file when
// re-recording (the old one removed, since recordings never overwrite), a
// temporary file otherwise.
func recordingPath(t *testing.T, name string) string {
	t.Helper()
	if !rerecording() {
		return filepath.Join(t.TempDir(), name)
	}
	path := filepath.Join("testdata", "recordings", name)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		// Committed recordings are readable like any other test data.
		require.NoError(t, os.Chmod(path, 0o644))
	})
	return path
}

func readRecording(t testing.TB, path string) *asciicast.Recording {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rec, err := asciicast.Read(f)
	require.NoError(t, err)
	return rec
}

// comparable drops what legitimately differs between a live screen and its
// replay: the number of writes that built it.
func comparable(s ptywright.ScreenSnapshot) ptywright.ScreenSnapshot {
	s.Sequence = 0
	return s
}

// markAt records a marker at a moment when the screen is not changing and
// returns the screen the marker stands for. Output is recorded under the
// same lock as the screen write and the marker, so an unchanged sequence
// around the marker proves the recording holds exactly this screen there.
func markAt(t *testing.T, s *ptywright.Session, label string) ptywright.ScreenSnapshot {
	t.Helper()
	for range 50 {
		waitFor(t, s, ptywright.ScreenStable(150*time.Millisecond))
		before := s.Screen().Snapshot(true)
		require.NoError(t, s.Mark(label))
		if s.Screen().Sequence() == before.Sequence {
			return before
		}
	}
	t.Fatalf("the screen never held still around marker %q", label)
	return ptywright.ScreenSnapshot{}
}

// replayUntil replays rec up to (not including) the marker label, or all of
// it when label is "".
func replayUntil(t *testing.T, rec *asciicast.Recording, label string) ptywright.ScreenSnapshot {
	t.Helper()
	cut := *rec
	if label != "" {
		i := 0
		for i < len(rec.Events) && !(rec.Events[i].Type == asciicast.EventMarker && rec.Events[i].Data == label) {
			i++
		}
		require.Less(t, i, len(rec.Events), "marker %q not in the recording", label)
		cut.Events = rec.Events[:i]
	}
	screen, err := ptywright.Replay(context.Background(), &cut, ptywright.ReplayOptions{})
	require.NoError(t, err)
	return screen.Snapshot(true)
}

// recordShell drives a shell through colours, a resize and a prompt, with
// markers at two moments, and returns the live screens at those markers and
// after Close.
func recordShell(t *testing.T, path string) (marks map[string]ptywright.ScreenSnapshot, final ptywright.ScreenSnapshot) {
	s := start(t, ptywright.Options{
		Program:    "/bin/sh",
		Env:        map[string]string{"PS1": "$ ", "HOME": t.TempDir(), "LANG": "C.UTF-8"},
		Size:       ptywright.Size{Rows: 24, Cols: 80},
		RecordPath: path,
	})
	marks = map[string]ptywright.ScreenSnapshot{}
	waitFor(t, s, ptywright.ContainsText("$"))
	send(t, s, ptywright.Text(`printf 'plain \033[1;31mbold red\033[0m \033[38;5;208morange\033[0m wide:中文\n'`+"\r"))
	waitFor(t, s, ptywright.ScreenRegex(`wide:中文\n\$ $`))
	marks["colours"] = markAt(t, s, "colours")
	require.NoError(t, s.Resize(ptywright.Size{Rows: 30, Cols: 100}))
	send(t, s, ptywright.Text("stty size\r"))
	waitFor(t, s, ptywright.ContainsText("30 100"))
	send(t, s, ptywright.Text("for i in 1 2 3; do echo line $i; done\r"))
	waitFor(t, s, ptywright.ContainsText("line 3"))
	marks["resized"] = markAt(t, s, "resized")
	send(t, s, ptywright.Text("exit\r"))
	waitFor(t, s, ptywright.ProcessExited())
	require.NoError(t, s.Close())
	return marks, s.Screen().Snapshot(true)
}

func TestRecordShellSessionReplaysToTheLiveScreen(t *testing.T) {
	tuitest.NoLeak(t)
	path := recordingPath(t, "shell.cast")
	marks, final := recordShell(t, path)
	rec := readRecording(t, path)
	require.Equal(t, 80, rec.Header.Width)
	require.Equal(t, 24, rec.Header.Height)
	for label, live := range marks {
		require.Equal(t, comparable(live), comparable(replayUntil(t, rec, label)), "screen at marker %q", label)
	}
	require.Equal(t, comparable(final), comparable(replayUntil(t, rec, "")), "final screen")
}

// recordVim types two lines in vim, leaves insert mode and quits.
func recordVim(t *testing.T, path string) (marks map[string]ptywright.ScreenSnapshot, final ptywright.ScreenSnapshot) {
	s := start(t, ptywright.Options{
		Program:    "vim",
		Args:       []string{"-u", "NONE", "-i", "NONE", "-N", "-n"},
		Dir:        t.TempDir(),
		Env:        map[string]string{"HOME": t.TempDir(), "LANG": "C.UTF-8"},
		Size:       ptywright.Size{Rows: 24, Cols: 80},
		RecordPath: path,
	})
	marks = map[string]ptywright.ScreenSnapshot{}
	waitFor(t, s, ptywright.ScreenRegex(`(?m)^~`))
	send(t, s, ptywright.Text("i"))
	waitFor(t, s, ptywright.ContainsText("-- INSERT --"))
	send(t, s, ptywright.Text("hello from ptywright\rsecond line, 中文"))
	waitFor(t, s, ptywright.ContainsText("second line, 中文"))
	marks["typed"] = markAt(t, s, "typed")
	send(t, s, ptywright.Press(ptywright.KeyEscape))
	waitFor(t, s, ptywright.ScreenRegex(`\n~$`)) // The mode line is gone.
	send(t, s, ptywright.Text("gg"))
	marks["normal"] = markAt(t, s, "normal")
	send(t, s, ptywright.Text(":q!"))
	waitFor(t, s, ptywright.ContainsText(":q!"))
	send(t, s, ptywright.Press(ptywright.KeyEnter))
	waitFor(t, s, ptywright.ProcessExited())
	require.NoError(t, s.Close())
	return marks, s.Screen().Snapshot(true)
}

func TestRecordVimSessionReplaysToTheLiveScreen(t *testing.T) {
	tuitest.NoLeak(t)
	path := recordingPath(t, "vim.cast")
	marks, final := recordVim(t, path)
	rec := readRecording(t, path)
	for label, live := range marks {
		require.Equal(t, comparable(live), comparable(replayUntil(t, rec, label)), "screen at marker %q", label)
	}
	require.Contains(t, marks["typed"].PlainText, "-- INSERT --")
	require.True(t, marks["typed"].AlternateScreen)
	require.Equal(t, comparable(final), comparable(replayUntil(t, rec, "")), "final screen")
	var inputs []string
	for _, ev := range rec.Events {
		if ev.Type == asciicast.EventInput {
			inputs = append(inputs, ev.Data)
		}
	}
	require.Equal(t, []string{"i", "hello from ptywright\rsecond line, 中文", "\x1b", "gg", ":q!", "\r"}, inputs,
		"input events are what Send wrote, and none of the terminal's replies to vim's queries")
}

// TestRecordingFileIsAsciicastV2 checks a live recording line by line against
// the asciicast v2 format with plain encoding/json, independently of
// ReadRecording.
func TestRecordingFileIsAsciicastV2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shell.cast")
	recordShell(t, path)
	checkAsciicastV2(t, path)
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
	}
}

func TestCommittedRecordingsAreAsciicastV2(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "recordings", "*.cast"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(paths), 3, "the recordings of vim, a shell and Claude Code are committed")
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) { checkAsciicastV2(t, p) })
	}
}

var resizeData = regexp.MustCompile(`^[1-9][0-9]*x[1-9][0-9]*$`)

func checkAsciicastV2(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(data), "\n"), "the file ends with a newline")
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "a header and events")

	var header map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &header), "line 1 is a JSON object")
	require.Equal(t, float64(2), header["version"])
	for _, k := range []string{"width", "height"} {
		v, ok := header[k].(float64)
		require.True(t, ok, "%s is a number", k)
		require.Equal(t, float64(int(v)), v, "%s is an integer", k)
		require.Positive(t, v)
	}
	ts, ok := header["timestamp"].(float64)
	require.True(t, ok, "timestamp is a number")
	require.Greater(t, ts, float64(1.6e9), "timestamp is Unix seconds")
	env, ok := header["env"].(map[string]any)
	require.True(t, ok, "env is an object")
	require.Equal(t, "xterm-256color", env["TERM"])
	for k, v := range env {
		_, isString := v.(string)
		require.True(t, isString, "env[%s] is a string", k)
	}

	prev := -1.0
	seen := map[string]int{}
	for i, line := range lines[1:] {
		var ev []any
		require.NoError(t, json.Unmarshal([]byte(line), &ev), "line %d is a JSON array", i+2)
		require.Len(t, ev, 3, "line %d: [time, code, data]", i+2)
		tm, ok := ev[0].(float64)
		require.True(t, ok, "line %d: time is a number", i+2)
		require.GreaterOrEqual(t, tm, prev, "line %d: times never decrease", i+2)
		prev = tm
		code, ok := ev[1].(string)
		require.True(t, ok, "line %d: code is a string", i+2)
		require.Contains(t, []string{"o", "i", "r", "m"}, code, "line %d", i+2)
		data, ok := ev[2].(string)
		require.True(t, ok, "line %d: data is a string", i+2)
		if code == "r" {
			require.Regexp(t, resizeData, data, "line %d: resize is COLSxROWS", i+2)
		}
		seen[code]++
	}
	require.Positive(t, seen["o"], "output events")
}

func TestRecordingRedactsByDefault(t *testing.T) {
	const secret = "sk-ant-api03-recordedsecret0123456789"
	for _, tc := range []struct {
		name string
		raw  bool
	}{{"redacted", false}, {"raw", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "secret.cast")
			s := start(t, ptywright.Options{Program: "/bin/sh", Env: map[string]string{"PS1": "$ "}, RecordPath: path, RecordRaw: tc.raw})
			waitFor(t, s, ptywright.ContainsText("$"))
			send(t, s, ptywright.Text("echo ANTHROPIC_API_KEY="+secret+"\r"))
			waitFor(t, s, ptywright.ScreenRegex(`(?m)^ANTHROPIC_API_KEY=`))
			require.NoError(t, s.Close())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			if tc.raw {
				require.Contains(t, string(data), secret)
				return
			}
			require.NotContains(t, string(data), "recordedsecret", "neither the echo (output) nor the typed line (input) leaks")
			require.Contains(t, string(data), "ANTHROPIC_API_KEY=[REDACTED]")
		})
	}
}

func TestRecordPathIsNeverOverwritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "taken.cast")
	require.NoError(t, os.WriteFile(path, []byte("keep"), 0o644))
	_, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", RecordPath: path})
	require.ErrorIs(t, err, ptywright.ErrFileExists)
	require.ErrorIs(t, err, fs.ErrExist)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "keep", string(data))
}

func TestFailedStartRemovesItsRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "never.cast")
	_, err := ptywright.Start(ptywright.Options{Program: "/nonexistent/program", RecordPath: path})
	require.Error(t, err)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, fs.ErrNotExist)
}
