//go:build unix

package ptywright_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

func TestPrintfRoundTrip(t *testing.T) {
	tuitest.NoLeak(t)
	s := sh(t, `printf 'hello \033[31mred\033[0m world\n'; printf 'second line'; sleep 5`)
	res := waitFor(t, s, ptywright.ContainsText("second line"))
	require.Equal(t, "hello red world\nsecond line", res.Snapshot.PlainText)
	require.Equal(t, ptywright.Size{Rows: 24, Cols: 80}, res.Snapshot.Size)

	snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
	require.Len(t, snap.Cells, 24*80)
	red := snap.Cells[6]
	require.Equal(t, "r", red.Text)
	require.Equal(t, "idx:1", red.Style.Foreground)
	require.Equal(t, "default", snap.Cells[0].Style.Foreground)
	require.Equal(t, ptywright.Cursor{Row: 1, Col: 11, Visible: true}, snap.Cursor)
	require.Contains(t, s.Transcript(ptywright.NoRedaction()), "hello \x1b[31mred")
}

func TestSGRColoursInAllForms(t *testing.T) {
	s := sh(t, `printf '\033[1;3;4;7;32mA\033[0m\033[38;5;208mB\033[0m\033[38;2;10;20;30;48;2;1;2;3mC\033[0m\033[2;44mD\033[0m\033[95mE\033[0m'; sleep 5`)
	waitFor(t, s, ptywright.ContainsText("ABCDE"))
	cells := s.Snapshot(ptywright.SnapshotOptions{Cells: true}).Cells
	require.Equal(t, ptywright.CellStyle{Foreground: "idx:2", Background: "default", Bold: true, Italic: true, Underline: true, UnderlineStyle: "single", Inverse: true}, cells[0].Style)
	require.Equal(t, "idx:208", cells[1].Style.Foreground)
	require.Equal(t, "rgb:10:20:30", cells[2].Style.Foreground)
	require.Equal(t, "rgb:1:2:3", cells[2].Style.Background)
	require.Equal(t, ptywright.CellStyle{Foreground: "default", Background: "idx:4", Dim: true}, cells[3].Style)
	require.Equal(t, "idx:13", cells[4].Style.Foreground)
}

func TestWideCharacters(t *testing.T) {
	s := sh(t, `printf '中文x🙂y\n'; sleep 5`)
	res := waitFor(t, s, ptywright.ContainsText("y"))
	require.Equal(t, "中文x🙂y", res.Snapshot.PlainText)
	cells := s.Snapshot(ptywright.SnapshotOptions{Cells: true}).Cells
	want := []struct {
		text       string
		wide, cont bool
	}{{"中", true, false}, {"", false, true}, {"文", true, false}, {"", false, true}, {"x", false, false}, {"🙂", true, false}, {"", false, true}, {"y", false, false}}
	for i, w := range want {
		c := cells[i]
		require.Equal(t, w.text, c.Text, "cell %d", i)
		require.Equal(t, w.wide, c.Wide, "cell %d wide", i)
		require.Equal(t, w.cont, c.WideContinuation, "cell %d continuation", i)
	}
}

func TestResizeReachesTheChild(t *testing.T) {
	tuitest.NoLeak(t)
	s := start(t, ptywright.Options{Program: "/bin/sh", Size: ptywright.Size{Rows: 30, Cols: 100}, Env: map[string]string{"PS1": "$ "}})
	send(t, s, ptywright.Text("stty size\r"))
	waitFor(t, s, ptywright.ContainsText("30 100"))
	send(t, s, ptywright.Resize(40, 120))
	require.Equal(t, ptywright.Size{Rows: 40, Cols: 120}, s.Size())
	send(t, s, ptywright.Text("stty size; echo $TERM\r"))
	res := waitFor(t, s, ptywright.ContainsText("40 120"))
	require.Equal(t, 40, res.Snapshot.Size.Rows)
	waitFor(t, s, ptywright.ContainsText("xterm-256color"))
}

func TestEnvAndDirAreApplied(t *testing.T) {
	dir := t.TempDir()
	s := start(t, ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `printf '%s|%s|%s' "$PWD" "$FOO" "$TERM"; sleep 5`},
		Dir:     dir,
		Env:     map[string]string{"FOO": "bar", "TERM": "vt100"},
	})
	res := waitFor(t, s, ptywright.ContainsText("|vt100"))
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, real+"|bar|vt100", strings.ReplaceAll(res.Snapshot.PlainText, "\n", ""))
}

func TestVimModesAndRestore(t *testing.T) {
	if _, err := os.Stat("/usr/bin/vim"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("vim is required in CI: .ci/run installs it")
		}
		t.Skip("vim not installed: apt-get install vim")
	}
	tuitest.NoLeak(t)
	s := start(t, ptywright.Options{
		Program: "vim",
		Args:    []string{"-u", "NONE", "-i", "NONE", "-N", "-n", "--cmd", "set title titlestring=PTYW-TITLE t_BE=\x1b[?2004h"},
		Env:     map[string]string{"HOME": t.TempDir()},
	})
	res := waitFor(t, s, ptywright.All(ptywright.ContainsText("~"), ptywright.ScreenStable(200*time.Millisecond)))
	snap := res.Snapshot
	require.True(t, snap.AlternateScreen, "vim uses the alternate screen")
	require.True(t, snap.ApplicationCursor, "vim sets application cursor keys")
	require.True(t, snap.BracketedPaste, "vim enables bracketed paste")
	require.Equal(t, "PTYW-TITLE", snap.Title)

	send(t, s, ptywright.Press(ptywright.KeyEscape))
	send(t, s, ptywright.Text(":q!\r"))
	waitFor(t, s, ptywright.ProcessExited())
	snap = s.Snapshot(ptywright.SnapshotOptions{})
	require.False(t, snap.AlternateScreen)
	require.False(t, snap.ApplicationCursor)
	require.False(t, snap.BracketedPaste)
	st, ok := s.ExitStatus()
	require.True(t, ok)
	require.Equal(t, 0, st.Code)
}

func TestCursorReportAnswered(t *testing.T) {
	s := sh(t, `stty raw -echo; printf 'ab\033[6n'; r=$(dd bs=1 count=6 2>/dev/null); stty sane; printf '\nGOT:%s\n' "$(printf %s "$r" | tr -d '\033')"; sleep 5`)
	res := waitFor(t, s, ptywright.ScreenRegex(`GOT:(\S+)`))
	require.Equal(t, "[1;3R", *res.Outcome.Capture)
}

func TestExitStatus(t *testing.T) {
	s := sh(t, `echo bye; exit 7`)
	waitFor(t, s, ptywright.ProcessExited())
	st, ok := s.ExitStatus()
	require.True(t, ok)
	require.Equal(t, 7, st.Code)
	require.Contains(t, s.Snapshot(ptywright.SnapshotOptions{}).PlainText, "bye")
}

func TestSendAfterExit(t *testing.T) {
	s := sh(t, `exit 0`)
	waitFor(t, s, ptywright.ProcessExited())
	err := s.Send(context.Background(), ptywright.Text("hello\r"))
	require.ErrorIs(t, err, ptywright.ErrProcessExited)
}

func TestSignalReachesProcessGroup(t *testing.T) {
	s := sh(t, `trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.05; done`)
	waitFor(t, s, ptywright.ContainsText("ready"))
	send(t, s, ptywright.SendSignal(ptywright.SignalUsr1))
	waitFor(t, s, ptywright.ContainsText("got-usr1"))
	send(t, s, ptywright.Kill())
	waitFor(t, s, ptywright.ProcessExited())
	st, _ := s.ExitStatus()
	require.Equal(t, "kill", st.Signal)
	// Killed, but still readable.
	require.Contains(t, s.Snapshot(ptywright.SnapshotOptions{}).PlainText, "got-usr1")
}

func TestCloseReapsChildIgnoringSIGTERM(t *testing.T) {
	tuitest.NoLeak(t)
	s, err := ptywright.Start(ptywright.Options{
		Program:    "/bin/sh",
		Args:       []string{"-c", `trap '' TERM HUP; echo ready; while :; do sleep 1; done`},
		CloseGrace: 100 * time.Millisecond,
	})
	require.NoError(t, err)
	waitFor(t, s, ptywright.ContainsText("ready"))
	pid := s.Pid()
	require.NoError(t, s.Close())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "child must be reaped")
	st, ok := s.ExitStatus()
	require.True(t, ok)
	require.Equal(t, "kill", st.Signal)
	require.ErrorIs(t, s.Send(context.Background(), ptywright.Text("x")), ptywright.ErrSessionClosed)
	require.NoError(t, s.Close(), "Close is idempotent")
}

func TestCloseWithGrandchildHoldingTTY(t *testing.T) {
	tuitest.NoLeak(t)
	// setsid puts the grandchild out of reach of the group kill while it
	// still holds the tty open.
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `setsid sh -c 'echo GPID=$$; exec sleep 30' & wait`},
	})
	require.NoError(t, err)
	res := waitFor(t, s, ptywright.ScreenRegex(`GPID=(\d+)`))
	gpid, err := strconv.Atoi(*res.Outcome.Capture)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(gpid, syscall.SIGKILL) })

	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung while a grandchild held the tty")
	}
}

func TestFloodKeepsTranscriptBounded(t *testing.T) {
	tuitest.NoLeak(t)
	const bound = 4096
	s := start(t, ptywright.Options{Program: "yes", Args: []string{"flood"}, TranscriptMaxChars: bound})
	// Let far more than the bound go through.
	waitFor(t, s, ptywright.ContainsText("flood"))
	cursor := s.TranscriptCursor()
	for s.TranscriptCursor() < cursor+64<<10 {
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, len([]rune(s.Transcript(ptywright.NoRedaction()))), bound)
	out := s.OutputSince(cursor, ptywright.NoRedaction())
	require.True(t, out.Dropped, "the bound cut the delta")
	require.LessOrEqual(t, len([]rune(out.Text)), bound)
	require.Greater(t, out.Next, cursor)
}

func TestRedactionOfScreenAndTranscript(t *testing.T) {
	s := sh(t, `printf 'key sk-ant-abcdefghijklmnopqrstuv\nAuthorization: Bearer abc.def.ghi\n'; sleep 5`)
	waitFor(t, s, ptywright.ContainsText("Bearer"))
	snap := s.Snapshot(ptywright.SnapshotOptions{Cells: true})
	require.NotContains(t, snap.PlainText, "sk-ant-abcdefghijklmnopqrstuv")
	require.NotContains(t, snap.PlainText, "abc.def.ghi")
	require.Contains(t, snap.PlainText, "[REDACTED]")
	var row0 strings.Builder
	for _, c := range snap.Cells[:80] {
		row0.WriteString(c.Text)
	}
	require.NotContains(t, row0.String(), "abcdefghijklmnop")
	require.Equal(t, 80, len(snap.Cells[:80]), "redaction keeps the grid")

	require.NotContains(t, s.Transcript(ptywright.DefaultRedactor()), "abcdefghijklmnop")
	require.Contains(t, s.Transcript(ptywright.NoRedaction()), "sk-ant-abcdefghijklmnopqrstuv")
	raw := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
	require.Contains(t, raw.PlainText, "sk-ant-abcdefghijklmnopqrstuv")
}

func TestRawTranscriptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raw.log")
	s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `printf 'secret sk-ant-abcdefghijklmnopqrstuv\n'`}, RawTranscriptPath: path})
	waitFor(t, s, ptywright.ProcessExited())
	require.NoError(t, s.Close())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "sk-ant-abcdefghijklmnopqrstuv", "the raw sink is unredacted")

	_, err = ptywright.Start(ptywright.Options{Program: "/bin/true", RawTranscriptPath: path})
	require.Error(t, err)
	require.True(t, errors.Is(err, os.ErrExist), "refuses to overwrite: %v", err)

	s2 := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "printf appended"}, RawTranscriptPath: path, RawTranscriptAppend: true})
	waitFor(t, s2, ptywright.ProcessExited())
	require.NoError(t, s2.Close())
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`(?s)sk-ant-.*appended`), string(data))
}

func TestStartErrors(t *testing.T) {
	_, err := ptywright.Start(ptywright.Options{})
	require.ErrorContains(t, err, "program")
	_, err = ptywright.Start(ptywright.Options{Program: "/nonexistent/prog"})
	require.Error(t, err)
	_, err = ptywright.Start(ptywright.Options{Program: "/bin/true", Size: ptywright.Size{Rows: -1, Cols: 80}})
	require.ErrorContains(t, err, "rows")
}

func TestMarkers(t *testing.T) {
	s := start(t, ptywright.Options{Program: "/bin/cat"})
	send(t, s, ptywright.Text("one\r"))
	waitFor(t, s, ptywright.TranscriptContains("one\r\none"))
	send(t, s, ptywright.MarkTranscript("after-one"))
	m := s.Markers()
	require.Equal(t, s.TranscriptCursor(), m["after-one"])
	send(t, s, ptywright.Text("two\r"))
	waitFor(t, s, ptywright.TranscriptContains("two\r\ntwo"))
	out := s.OutputSince(m["after-one"], nil)
	require.False(t, out.Dropped)
	require.Equal(t, "two\r\ntwo\r\n", out.Text)
}

func TestCloseKillsBackgroundJobsInOtherGroups(t *testing.T) {
	tuitest.NoLeak(t)
	// set -m puts the background job in a process group of its own, out of
	// reach of the group kill, but still in the child's session.
	s, err := ptywright.Start(ptywright.Options{
		Program: "/bin/sh",
		Args:    []string{"-c", `set -m; sh -c 'trap "" HUP TERM; echo JOB=$$; exec sleep 30' & wait`},
	})
	require.NoError(t, err)
	res := waitFor(t, s, ptywright.ScreenRegex(`JOB=(\d+)`))
	job, err := strconv.Atoi(*res.Outcome.Capture)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(job, syscall.SIGKILL) })
	require.NoError(t, s.Close())
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(job, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("background job %d outlived Close", job)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
