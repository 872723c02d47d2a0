package ptywright_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// start runs a program on a PTY for the length of the test.
func start(t testing.TB, opts ptywright.Options) *ptywright.Session {
	t.Helper()
	s, err := ptywright.Start(opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// sh runs a shell command on a PTY for the length of the test.
func sh(t testing.TB, script string) *ptywright.Session {
	t.Helper()
	return start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", script}})
}

// waitFor waits up to 10 s for m and fails the test with the screen if it
// does not match.
func waitFor(t testing.TB, s *ptywright.Session, m ptywright.Matcher) *ptywright.WaitResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.Wait(ctx, m)
	if err != nil {
		snap := s.Snapshot(ptywright.SnapshotOptions{Raw: true})
		t.Fatalf("wait %s: %v\nscreen:\n%s\ntranscript: %q", tuitest.MustJSON(m), err, snap.PlainText, s.Transcript(ptywright.NoRedaction()))
	}
	return res
}

func send(t testing.TB, s *ptywright.Session, a ptywright.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Send(ctx, a))
}
