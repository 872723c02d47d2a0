//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// awaitView waits until the attached view on the outer terminal shows the
// session's screen: the same rows, each cell in the same style, and the
// cursor in the same place. The session is read again each time the view
// changes.
func awaitView(t *testing.T, s *server, view *ptywright.Session, session string) {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	var got, want []string
	for {
		_, changed := view.Changed()
		var inner ptywright.ScreenSnapshot
		s.call(t, "session.snapshot", map[string]any{"session": session, "redact": false}, &inner)
		outer := view.Snapshot(ptywright.SnapshotOptions{Raw: true, Cells: true})
		want = screenRows(inner.PlainText, inner.Size.Rows)
		got = screenRows(outer.PlainText, outer.Size.Rows)[:inner.Size.Rows]
		if strings.Join(got, "\n") == strings.Join(want, "\n") && outer.Cursor.Row == inner.Cursor.Row && outer.Cursor.Col == inner.Cursor.Col && sameStyles(inner, outer) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("the view never showed the session's screen\nwant (cursor %d,%d):\n%s\ngot (cursor %d,%d):\n%s",
				inner.Cursor.Row, inner.Cursor.Col, strings.Join(want, "\n"), outer.Cursor.Row, outer.Cursor.Col, outer.PlainText)
		}
	}
}

// sameStyles says each cell of inner has the style of the cell at its
// place in outer.
func sameStyles(inner, outer ptywright.ScreenSnapshot) bool {
	for _, c := range inner.Cells {
		if o := outer.Cells[c.Row*outer.Size.Cols+c.Col]; o.Style != c.Style {
			return false
		}
	}
	return true
}

// screenRows splits plain text into rows rows, trailing blanks cut.
func screenRows(text string, rows int) []string {
	out := make([]string, rows)
	for i, r := range strings.Split(text, "\n") {
		if i < rows {
			out[i] = strings.TrimRight(r, " ")
		}
	}
	return out
}

// attach runs inside a real terminal (an outer ptywright Session): two
// viewers at once, one read-only by session id, one with --control by
// adapter id. Each shows the session's screen as it changes, the keys
// typed with --control reach the program, the adapter's intents are
// refused while the person has the terminal and taken after the detach
// key, and detaching leaves the session running.
func TestAttach(t *testing.T) {
	s := startServe(t, "--plugin", echoManifest)
	pw := func(args ...string) result {
		t.Helper()
		return runCLI(append(args, "--socket", s.socket)...)
	}
	res := pw("adapter", "start", "echo", "--rows", "6", "--cols", "40")
	require.Equal(t, 0, res.code, res.stderr)
	adapter := strings.TrimSpace(res.stdout)
	var list struct{ Details []attachInfo }
	s.call(t, "session.list", map[string]any{"details": true}, &list)
	require.Len(t, list.Details, 1)
	session := list.Details[0].Session
	res = pw("adapter", "send", adapter, "send_text", "--param", "text=from the agent")
	require.Equal(t, 0, res.code, res.stderr)

	size := ptywright.Size{Rows: 10, Cols: 80}
	viewer := outer(t, size, pwBin, "attach", "--socket", s.socket, session)
	await(t, viewer, ptywright.ContainsText(": echoed | read-only | Ctrl-] detaches"))
	awaitView(t, s, viewer, session)
	status := strings.Split(viewer.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, "\n")[size.Rows-1]
	require.Equal(t, " "+session+" | /bin/sh | 6x40 | adapter "+adapter+": echoed | read-only | Ctrl-] detaches", strings.TrimRight(status, " "))
	// The user's terminal shrinks: the view follows, the status line on
	// its new last row.
	require.NoError(t, viewer.Resize(ptywright.Size{Rows: 8, Cols: 80}))
	await(t, viewer, ptywright.ScreenRegex(`\A(.*\n){7} `+session+` \| /bin/sh`))
	awaitView(t, s, viewer, session)

	controller := outer(t, size, pwBin, "attach", "--socket", s.socket, "--control", "--detach-key", "ctrl-b", adapter)
	await(t, controller, ptywright.ContainsText("control | Ctrl-B detaches"))
	// Control is one person's: a second --control attach is refused.
	second := outer(t, ptywright.Size{Rows: 5, Cols: 200}, pwBin, "attach", "--socket", s.socket, "--control", session)
	require.Equal(t, exitUsage, exitStatus(t, second).Code)
	require.Contains(t, second.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, "another person has the terminal")
	res = pw("adapter", "send", adapter, "send_text", "--param", "text=refused")
	require.Equal(t, exitUsage, res.code, res.stderr)
	require.Contains(t, res.stderr, "a person has the terminal of session "+session)
	res = pw("adapter", "state", adapter)
	require.Equal(t, 0, res.code, res.stderr)

	type_(t, controller, "typed \x1b[1;31mby\x1b[0;4;48;5;200m hand\x1b[0m\r")
	res = pw("wait", session, "--regex", "(?m)^typed by hand", "--timeout", patience.String())
	require.Equal(t, 0, res.code, res.stderr)
	awaitView(t, s, viewer, session)
	awaitView(t, s, controller, session)

	// The detach key: attach ends, the terminal is given back, the
	// session runs on and the adapter takes intents again.
	type_(t, controller, "\x02")
	require.Equal(t, 0, exitStatus(t, controller).Code)
	after := controller.Snapshot(ptywright.SnapshotOptions{Raw: true})
	require.False(t, after.AlternateScreen, "attach left the alternate screen")
	res = pw("adapter", "send", adapter, "send_text", "--param", "text=after the person")
	require.Equal(t, 0, res.code, res.stderr)
	awaitView(t, s, viewer, session)

	type_(t, viewer, "ignored\x1d")
	require.Equal(t, 0, exitStatus(t, viewer).Code)
	require.False(t, viewer.Snapshot(ptywright.SnapshotOptions{Raw: true}).AlternateScreen)

	// A signal ends attach too, and the terminal is given back.
	killed := outer(t, size, pwBin, "attach", "--socket", s.socket, "--control", session)
	await(t, killed, ptywright.ContainsText("control | Ctrl-] detaches"))
	require.NoError(t, killed.Signal(ptywright.SignalTerm))
	require.Equal(t, exitFailure, exitStatus(t, killed).Code)
	require.False(t, killed.Snapshot(ptywright.SnapshotOptions{Raw: true}).AlternateScreen)
	require.Contains(t, killed.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, "detached by signal terminated")
	res = pw("adapter", "send", adapter, "send_text", "--param", "text=after the signal")
	require.Equal(t, 0, res.code, res.stderr)
	res = pw("list")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, session)
	var snap ptywright.ScreenSnapshot
	s.call(t, "session.snapshot", map[string]any{"session": session, "cells": false}, &snap)
	require.NotContains(t, snap.PlainText, "ignored", "a read-only viewer typed into the session")
}

// Command lines attach cannot act on exit 2 before any terminal or server
// is touched.
func TestAttachCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"attach"}, "session or adapter ID required"},
		{[]string{"attach", "s1", "--detach-key", "alt-x"}, `--detach-key: want ctrl-X, got "alt-x"`},
		{[]string{"attach", "s1", "--detach-key", "ctrl-1"}, "want ctrl-X with X a letter"},
		{[]string{"attach", "s1", "--socket", "/nonexistent/sock"}, "stdin and stdout must be a terminal"},
	} {
		res := runCLI(tc.args...)
		require.Equal(t, exitUsage, res.code, "%v: %s", tc.args, res.stderr)
		require.Contains(t, res.stderr, tc.want, tc.args)
	}
	for in, want := range map[string]byte{"ctrl-]": 0x1d, "Ctrl-B": 0x02, "^c": 0x03, "ctrl-@": 0} {
		got, err := parseDetachKey(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
		require.Equal(t, strings.ToUpper(strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(in), "ctrl-"), "^")), detachLabel(in)[len("Ctrl-"):], in)
	}
}
