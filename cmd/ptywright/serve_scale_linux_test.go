package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/rpc"
)

// scaleSessions is how many sessions TestServeAtScale holds;
// PTYWRIGHT_SCALE_SESSIONS changes it for a measurement.
func scaleSessions(t *testing.T) int {
	t.Helper()
	v := os.Getenv("PTYWRIGHT_SCALE_SESSIONS")
	if v == "" {
		return 2000
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, "PTYWRIGHT_SCALE_SESSIONS")
	return n
}

// scaleCloseOne is how many sessions TestServeAtScale closes one by one
// with session.close; the rest end with the server, at SIGTERM.
const scaleCloseOne = 200

// TestServeAtScale: one server (the plain binary, niced, on a local
// socket) holds 2,000 idle sessions created one after another, lists them,
// snapshots each (without cells), closes 200 one by one and stops at SIGTERM with the rest
// open, leaving no child behind. It reports the threads, the RSS and the
// time of each step, and requires the threads to stay few (a thread per
// session ran into the process's limits at a couple of hundred) and the
// exit to be clean and whole.
func TestServeAtScale(t *testing.T) {
	n := scaleSessions(t)
	dir := t.TempDir()
	s := &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(dir, "serve.sock")}
	args := []string{"-n", "10", cappedBinary(t), "serve", "--socket", s.socket, "--log-level", "warn"}
	s.cmd = exec.Command("nice", args...)
	s.cmd.Stderr = s.stderr
	s.start(t)
	waitListening(t, s, s.stderr)
	pid := s.cmd.Process.Pid
	c := dialRPC(t, s.socket)
	report := func(step string, took time.Duration, per int) {
		threads, rssKiB := procFigures(t, pid)
		each := ""
		if per > 0 {
			each = fmt.Sprintf(" (%.2f ms each)", float64(took.Microseconds())/1000/float64(per))
		}
		t.Logf("%-28s %8.2f s%s; %d threads, RSS %.1f MiB", step, took.Seconds(), each, threads, float64(rssKiB)/1024)
	}
	report("idle", 0, 0)

	ids := make([]string, 0, n)
	start := time.Now()
	for range n {
		var res struct {
			Session string `json:"session"`
		}
		c.do(t, "session.create", map[string]any{"program": "sleep", "args": []string{"600"}}, &res)
		ids = append(ids, res.Session)
	}
	report(fmt.Sprintf("created %d", n), time.Since(start), n)
	threads, _ := procFigures(t, pid)
	require.Less(t, threads, 30, "threads with %d idle sessions", n)

	start = time.Now()
	var list struct {
		Sessions []string `json:"sessions"`
	}
	c.do(t, "session.list", nil, &list)
	report("listed", time.Since(start), 0)
	require.Equal(t, ids, list.Sessions)

	start = time.Now()
	for _, id := range ids {
		var snap struct {
			Size  struct{ Rows, Cols int } `json:"size"`
			Cells []json.RawMessage        `json:"cells"`
		}
		c.do(t, "session.snapshot", map[string]any{"session": id, "cells": false}, &snap)
		require.Equal(t, 24, snap.Size.Rows)
		require.Empty(t, snap.Cells)
	}
	report("snapshotted each", time.Since(start), n)

	closing := min(scaleCloseOne, n)
	start = time.Now()
	for _, id := range ids[:closing] {
		c.do(t, "session.close", map[string]any{"session": id}, nil)
	}
	report(fmt.Sprintf("closed %d one by one", closing), time.Since(start), closing)

	children := childrenOf(t, pid)
	require.Len(t, children, n-closing, "the sessions left run their programs")
	start = time.Now()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-s.done:
		require.NoError(t, err, "stderr:\n%s", s.stderr)
	case <-time.After(2 * time.Minute):
		t.Fatalf("the server did not exit within 2 min of SIGTERM with %d sessions", n-closing)
	}
	t.Logf("%-28s %8.2f s", fmt.Sprintf("SIGTERM with %d open", n-closing), time.Since(start).Seconds())
	for _, child := range children {
		require.ErrorIs(t, syscall.Kill(child, 0), syscall.ESRCH, "child %d outlived the server", child)
	}
}

// rpcConn is one JSON-RPC connection making calls one after another.
type rpcConn struct {
	nc   net.Conn
	r    *bufio.Reader
	next int
}

func dialRPC(t *testing.T, socket string) *rpcConn {
	t.Helper()
	nc, err := net.Dial("unix", socket)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &rpcConn{nc: nc, r: bufio.NewReaderSize(nc, 1<<16)}
}

// do makes one call and decodes its result into out (nil: ignored).
func (c *rpcConn) do(t *testing.T, method string, params, out any) {
	t.Helper()
	c.next++
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	require.NoError(t, err)
	require.NoError(t, c.nc.SetDeadline(time.Now().Add(patience)))
	_, err = c.nc.Write(append(req, '\n'))
	require.NoError(t, err, method)
	line, err := c.r.ReadBytes('\n')
	require.NoError(t, err, method)
	var resp struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpc.Error      `json:"error"`
	}
	require.NoError(t, json.Unmarshal(line, &resp))
	require.Nil(t, resp.Error, "%s", method)
	require.Equal(t, c.next, resp.ID)
	if out != nil {
		require.NoError(t, json.Unmarshal(resp.Result, out))
	}
}

// procFigures returns a process's threads and RSS in KiB.
func procFigures(t *testing.T, pid int) (threads int, rssKiB int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			threads, err = strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
		}
	}
	rssKiB, err = rss(pid)
	require.NoError(t, err)
	return threads, rssKiB
}

// childrenOf lists the children of pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	var out []int
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	require.NoError(t, err)
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		if err != nil {
			continue // The thread ended meanwhile.
		}
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			require.NoError(t, err)
			out = append(out, child)
		}
	}
	return out
}
