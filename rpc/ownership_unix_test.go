//go:build unix

package rpc

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// listed returns session.list's details by session id.
func listed(c *client) map[string]sessionInfo {
	var res sessionListResult
	c.do("session.list", map[string]any{"details": true}, &res)
	out := make(map[string]sessionInfo, len(res.Details))
	for _, d := range res.Details {
		out[d.Session] = d
	}
	return out
}

// waitGone polls session.list until id is gone, failing after patience.
func waitGone(t *testing.T, c *client, id string) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		if _, ok := listed(c)[id]; !ok {
			return time.Since(start)
		}
		require.Less(t, time.Since(start), patience, "%s is still there", id)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConnectionOwnedSessionsEndWithTheirConnection: a session or adapter
// started with owner "connection" is closed, its whole process tree with
// it, when the connection that started it ends, however it ends; a shared
// one stays.
func TestConnectionOwnedSessionsEndWithTheirConnection(t *testing.T) {
	path := serveUnix(t, newServer(t, Options{Plugins: newPlugins(t, echoManifest)}))
	watcher := dialUnix(t, path, NDJSON)
	for round := range 3 {
		owner := dialUnix(t, path, NDJSON)
		owned := owner.create(map[string]any{"program": "/bin/sh", "owner": "connection",
			"args": []string{"-c", "sleep 600 & echo child:$!; wait"}})
		res := owner.wait(owned, map[string]any{"type": "screen_regex", "value": `child:\d+`})
		child, err := strconv.Atoi(strings.TrimPrefix(strings.Fields(res.Snapshot.PlainText)[0], "child:"))
		require.NoError(t, err)
		a := owner.startAdapter(map[string]any{"plugin": "echo", "program": "cat", "owner": "connection"})
		shared := owner.create(map[string]any{"program": "cat"})

		l := listed(watcher)
		require.Equal(t, sessionInfo{Session: owned, Owner: "connection", Program: "/bin/sh"}, l[owned])
		require.Equal(t, sessionInfo{Session: a.Session, Adapter: a.Adapter, Owner: "connection", Program: "cat"}, l[a.Session])
		require.Equal(t, sessionInfo{Session: shared, Owner: "shared", Program: "cat"}, l[shared])

		require.NoError(t, owner.rwc.Close()) // The client goes, as a killed one would.
		took := waitGone(t, watcher, owned)
		waitGone(t, watcher, a.Session)
		t.Logf("round %d: the owned session was gone %v after its connection", round, took)
		require.Contains(t, listed(watcher), shared, "a shared session outlives its creator")
		var live adapterLiveResult
		watcher.do("adapter.live", nil, &live)
		for _, x := range live.Adapters {
			require.NotEqual(t, a.Adapter, x.Adapter)
		}
		// Gone from the list first, then closed: its grandchild dies, and
		// is reaped by whoever inherited it, a moment later.
		deadline := time.Now().Add(patience)
		for syscall.Kill(child, 0) == nil {
			require.True(t, time.Now().Before(deadline), "the owned session's grandchild %d outlived it", child)
			time.Sleep(10 * time.Millisecond)
		}
		watcher.do("session.close", map[string]any{"session": shared}, nil)
	}
}

// TestIdleSessionsExpire: a session with idle_timeout_ms stays while
// requests name it, and while a wait on it runs longer than the timeout,
// and is closed once none has for that long.
func TestIdleSessionsExpire(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	// Touches ten times closer together than the timeout: a loaded
	// machine may stretch a gap, not tenfold.
	id := c.create(map[string]any{"program": "cat", "idle_timeout_ms": 1000})
	require.Equal(t, sessionInfo{Session: id, Owner: "shared", IdleTimeoutMs: 1000, Program: "cat"}, listed(c)[id])
	for range 15 {
		time.Sleep(100 * time.Millisecond)
		c.do("session.snapshot", map[string]any{"session": id, "cells": false}, nil)
	}
	e := c.callErr("session.wait", map[string]any{"session": id, "timeout_ms": 2000, "matcher": containsText("never")})
	requireError(t, e, CodeTimeout, "timed out")
	require.Contains(t, listed(c), id, "a wait longer than the timeout keeps it")
	took := waitGone(t, c, id)
	t.Logf("gone %v after the last request", took)
	require.Greater(t, took, 800*time.Millisecond, "not before its timeout")

	for _, tt := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"program": "cat", "owner": "nobody"}, `owner: must be "shared" or "connection", got "nobody"`},
		{map[string]any{"program": "cat", "idle_timeout_ms": 0}, "idle_timeout_ms: must be between 1 and 86400000, got 0"},
	} {
		requireError(t, c.callErr("session.create", tt.params), CodeInvalidParams, tt.msg)
	}
}
