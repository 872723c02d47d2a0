//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// These tests run the binary inside a ptywright Session, whose PTY is a
// real terminal for stdin and stdout: the outer Session plays the user's
// terminal emulator.

// outer starts program on a PTY of the given size for the test's length,
// with $PW naming the binary.
func outer(t *testing.T, size ptywright.Size, program string, args ...string) *ptywright.Session {
	t.Helper()
	s, err := ptywright.Start(ptywright.Options{
		Program: program,
		Args:    args,
		Size:    size,
		Env:     map[string]string{"PW": pwBin},
	})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// await waits for m; the timeout only keeps a failure from hanging, and the
// failure shows the screen and the raw transcript.
func await(t *testing.T, s *ptywright.Session, m ptywright.Matcher) *ptywright.WaitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.Wait(ctx, m, ptywright.WithRedactor(ptywright.NoRedaction()))
	if err != nil {
		snap := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
		t.Fatalf("wait: %v\nscreen:\n%s\ntranscript: %q", err, snap.PlainText, s.Transcript(ptywright.NoRedaction()))
	}
	return res
}

func type_(t *testing.T, s *ptywright.Session, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Send(ctx, ptywright.Paste(text)))
}

func exitStatus(t *testing.T, s *ptywright.Session) ptywright.ExitStatus {
	t.Helper()
	await(t, s, ptywright.ProcessExited())
	st, ok := s.ExitStatus()
	require.True(t, ok)
	return st
}

// The child starts with the terminal's size and follows its resizes, and
// input typed after a resize reaches the child after the resize.
func TestTerminalSizeFollowsResize(t *testing.T) {
	s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, pwBin, "run", "--", "/bin/sh", "-c", "stty size; read x; stty size")
	await(t, s, ptywright.ContainsText("24 80"))
	require.NoError(t, s.Resize(ptywright.Size{Rows: 30, Cols: 100}))
	type_(t, s, "go\r")
	await(t, s, ptywright.ContainsText("30 100"))
	require.Equal(t, 0, exitStatus(t, s).Code)
}

// A resize alone reaches the child as SIGWINCH, without waiting for input.
func TestTerminalResizeSignalsChild(t *testing.T) {
	s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, pwBin, "run", "--", "/bin/sh", "-c",
		`trap 'stty size' WINCH; stty size; while :; do sleep 0.1; done`)
	await(t, s, ptywright.ContainsText("24 80"))
	require.NoError(t, s.Resize(ptywright.Size{Rows: 20, Cols: 60}))
	await(t, s, ptywright.ContainsText("20 60"))
}

// --rows fixes the rows; the columns still follow the terminal.
func TestTerminalPinnedRows(t *testing.T) {
	s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, pwBin, "run", "--rows", "12", "--", "/bin/sh", "-c", "stty size; read x; stty size")
	await(t, s, ptywright.ContainsText("12 80"))
	require.NoError(t, s.Resize(ptywright.Size{Rows: 30, Cols: 100}))
	type_(t, s, "go\r")
	await(t, s, ptywright.ContainsText("12 100"))
}

// In raw mode every byte reaches the child as typed: no line editing,
// no signals from ^C or ^Z, no CR to NL, nothing held until Enter.
func TestTerminalRawInput(t *testing.T) {
	tests := []struct {
		name   string
		script string
		input  string
		want   string
	}{
		{
			name:   "control bytes unbuffered",
			script: "stty raw -echo; echo ready; head -c 6 | od -An -tx1",
			input:  "\x01\x03\x1a\x7f\r\x04",
			want:   "01 03 1a 7f 0d 04",
		},
		{
			name:   "ctrl-A reaches cat -v",
			script: "stty -echo; echo ready; exec cat -v",
			input:  "a\x01b\r",
			want:   "a^Ab",
		},
		{
			name:   "keys pass, replies and focus events do not",
			script: "stty raw -echo; echo ready; head -c 19 | od -An -c",
			// A focus event, an arrow key, a DA reply, text, a CPR, ESC,
			// Alt-z and digits: 19 bytes reach the child.
			input: "\x1b[I" + "\x1b[A" + "\x1b[?1;2c" + "abc" + "\x1b[5;5R" + "\x1b" + "\x1bz" + "0123456789",
			want:  "033   [   A   a   b   c 033 033   z   0   1   2   3   4   5   6",
		},
		{
			name:   "a lone ESC is let through after a pause",
			script: "stty raw -echo; echo ready; head -c 1 | od -An -tx1",
			input:  "\x1b",
			want:   "1b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, pwBin, "run", "--", "/bin/sh", "-c", tc.script)
			await(t, s, ptywright.ContainsText("ready"))
			type_(t, s, tc.input)
			await(t, s, ptywright.ContainsText(tc.want))
		})
	}
}

// A query the child writes reaches the real terminal too, which answers
// it; only the answer from run's own screen may reach the child.
func TestTerminalQueryAnsweredOnce(t *testing.T) {
	s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, pwBin, "run", "--", "/bin/sh", "-c",
		`stty raw -echo; printf '\033[c\033[6n'; echo ready; exec cat -v`)
	// run's screen answers both queries.
	await(t, s, ptywright.ContainsText("^[[1;1R"))
	// Round trips through the child, so the outer terminal's answers
	// (written before these keys) have been through run's filter.
	for _, step := range []struct{ key, shown string }{{"1", "1$"}, {"2", "12$"}, {"3", "123$"}} {
		type_(t, s, step.key)
		await(t, s, ptywright.ScreenRegex(step.shown))
	}
	text := s.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText
	require.Equal(t, 1, strings.Count(text, "^[[?"), "one DA answer:\n%s", text)
	require.Equal(t, 1, strings.Count(text, "R"), "one cursor report:\n%s", text)
}

// The terminal mode is restored however run ends, and run's exit code is
// the child's.
func TestTerminalRestored(t *testing.T) {
	tests := []struct {
		name  string
		child string
		code  string
	}{
		{"exit code", "exit 3", "3"},
		{"child killed", "kill -KILL $$", "137"},
		{"run signalled", "kill -TERM $PPID; sleep 5", "143"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := `before=$(stty -g); "$PW" run -- /bin/sh -c '` + tc.child + `'; rc=$?; ` +
				`if [ "$(stty -g)" = "$before" ]; then echo "restored rc=$rc"; else echo "changed rc=$rc"; fi`
			s := outer(t, ptywright.Size{Rows: 24, Cols: 80}, "/bin/sh", "-c", script)
			await(t, s, ptywright.ScreenRegex(`(restored|changed) rc=\d+`))
			await(t, s, ptywright.ContainsText("restored rc="+tc.code))
		})
	}
}
