//go:build unix

package mcpserver

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// When the client disconnects, every session and adapter it started is
// closed and reaped, a background job of a shell included, and a wait in
// progress ends: Serve returns only after that.
func TestDisconnectReapsEverything(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest, noinputManifest)}, nil)
	var pids []int

	sh := s.startShell(t)
	pids = append(pids, sh.Pid)
	s.ok(t, "session_send", map[string]any{"session": sh.Session, "text": "sleep 1000 & echo job=$!", "keys": []string{"enter"}}, nil)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": sh.Session, "regex": `(?m)^job=(\d+)`}, &w)
	require.True(t, w.Matched, w.Screen)
	job, err := strconv.Atoi(w.Capture)
	require.NoError(t, err)

	var quiet startOut
	s.ok(t, "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "trap '' HUP TERM; echo stubborn; while :; do sleep 1; done"}}, &quiet)
	pids = append(pids, quiet.Pid)
	s.ok(t, "session_wait", map[string]any{"session": quiet.Session, "text": "stubborn"}, &w)
	require.True(t, w.Matched)

	// noinput may not close its adapter: only the disconnect can.
	for _, plugin := range []string{"echo", "noinput"} {
		var a adapterStarted
		s.ok(t, "adapter_start", map[string]any{"plugin": plugin}, &a)
		require.NotZero(t, a.Pid)
		pids = append(pids, a.Pid)
	}

	// A wait in progress when the client goes.
	waitErr := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "session_wait", Arguments: map[string]any{"session": sh.Session, "text": "never-shown"}}
		_, err := s.cs.CallTool(context.Background(), params)
		waitErr <- err
	}()
	require.Eventually(t, func() bool { return waitsRunning() == 1 }, patience, 5*time.Millisecond)

	s.drop(t)
	require.Error(t, <-waitErr, "the client's own call ends with its connection")
	for _, pid := range append(pids, job) {
		requireGone(t, pid)
	}
	require.Zero(t, waitsRunning())
}

// A client that says goodbye properly leaves nothing behind either.
func TestCloseReapsEverything(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest)}, nil)
	sh := s.startShell(t)
	var a adapterStarted
	s.ok(t, "adapter_start", map[string]any{"plugin": "echo"}, &a)
	s.disconnect(t)
	requireGone(t, sh.Pid)
	requireGone(t, a.Pid)
}

// When the server's context ends (the CLI got SIGTERM), Serve closes the
// connection and everything on it.
func TestServeContextEndReapsEverything(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- New(Options{}).Serve(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	s := &served{cs: cs}
	sh := s.startShell(t)
	cancel()
	require.NoError(t, <-done)
	requireGone(t, sh.Pid)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "session_snapshot", Arguments: map[string]any{"session": sh.Session}})
	require.Error(t, err, "the server is gone: %v", res)
}
