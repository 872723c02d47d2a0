package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/rpc"
)

// createUntilRefused creates sessions of params until the server refuses
// one (at most max tries) and returns the ids made and the refusal. With
// ready set, each session is waited for until its screen shows it.
func createUntilRefused(t *testing.T, socket string, params map[string]any, max int, ready ...string) ([]string, *rpc.Error) {
	t.Helper()
	var made []string
	for range max {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		res, err := call(ctx, socket, "session.create", params)
		cancel()
		if err != nil {
			var re *rpc.Error
			require.True(t, errors.As(err, &re), "not an error reply after %d sessions: %v", len(made), err)
			return made, re
		}
		var created struct {
			Session string `json:"session"`
		}
		require.NoError(t, json.Unmarshal(res, &created))
		made = append(made, created.Session)
		for _, text := range ready {
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			_, err := call(ctx, socket, "session.wait", map[string]any{"session": created.Session, "timeout_ms": patience.Milliseconds(),
				"matcher": map[string]any{"type": "contains_text", "value": text}})
			cancel()
			require.NoError(t, err)
		}
	}
	t.Fatalf("%d sessions and no refusal", max)
	return nil, nil
}

// requireServesOn checks that the server still runs, answers, holds the
// sessions it made, and that the first of them still echoes input.
func requireServesOn(t *testing.T, s *server, made []string) {
	t.Helper()
	select {
	case err := <-s.done:
		t.Fatalf("the server exited: %v\nstderr:\n%s", err, s.stderr)
	default:
	}
	var list struct {
		Sessions []string `json:"sessions"`
	}
	s.call(t, "session.list", nil, &list)
	require.Equal(t, made, list.Sessions)
	s.call(t, "session.input", map[string]any{"session": made[0], "action": map[string]any{"type": "text", "value": "still here\r"}}, nil)
	s.call(t, "session.wait", map[string]any{"session": made[0], "timeout_ms": patience.Milliseconds(),
		"matcher": map[string]any{"type": "screen_regex", "value": `still here\n.*still here`}}, nil)
}

// TestServeRefusesWhatItsAddressSpaceCannotHold: under RLIMIT_AS, large
// screens, each filled, are created until the server refuses one with -32007 (before
// the Go runtime, out of address space, would abort the process and every
// session with it); the server keeps serving what it holds.
func TestServeRefusesWhatItsAddressSpaceCannotHold(t *testing.T) {
	s := startCappedServe(t)
	// A screen costs its cells once they are written: each fills its own.
	fill := map[string]any{"program": "/bin/sh", "rows": 1000, "cols": 1000,
		"args": []string{"-c", `head -c 999000 /dev/zero | tr '\0' x; echo; echo filled; exec cat`}}
	made, refusal := createUntilRefused(t, s.socket, fill, 500, "filled")
	require.NotEmpty(t, made, "not one 1000x1000 session fits: %v", refusal)
	require.Equal(t, int64(rpc.CodeCapacity), refusal.Code, refusal.Message)
	var data struct {
		Limit string `json:"limit"`
		Max   int64  `json:"max"`
		InUse int64  `json:"in_use"`
	}
	require.NoError(t, json.Unmarshal(refusal.Data, &data), "%s", refusal.Data)
	require.Contains(t, []string{"address_space", "memory"}, data.Limit, refusal.Message)
	require.GreaterOrEqual(t, data.InUse, data.Max)
	t.Logf("%d sessions of 1000x1000 under RLIMIT_AS %d MiB, then: %s", len(made), serverAddressSpace>>20, refusal.Message)
	requireServesOn(t, s.server, made)
}

// TestServeRefusesPastRLIMIT_NPROC: a server whose user may run 120
// tasks derives its session cap from that limit, refuses the session past
// it with -32007, and keeps serving (before, the runtime aborted when it
// could not create a thread, taking every session with it). The server
// runs as nobody, whose tasks are its own: the kernel exempts root from
// RLIMIT_NPROC, and another user's count would be shared with whatever
// else that user runs.
func TestServeRefusesPastRLIMIT_NPROC(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the server as nobody under its own RLIMIT_NPROC")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "ptwnproc")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "ptywright")
	src, err := os.ReadFile(cappedBinary(t))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, src, 0o755))
	sockDir := filepath.Join(dir, "sock")
	require.NoError(t, os.Mkdir(sockDir, 0o755))
	require.NoError(t, os.Chown(sockDir, nobody, nobody))

	s := &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(sockDir, "serve.sock")}
	s.cmd = exec.Command("bash", "-c", `ulimit -u 120 && exec "$0" serve --socket "$1" --log-level warn`, bin, s.socket)
	s.cmd.Dir = dir
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	s.cmd.Stderr = s.stderr
	s.start(t)
	waitListening(t, s, s.stderr)
	limits, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/limits")
	require.NoError(t, err)
	require.Regexp(t, `Max processes\s+120\s+120\s`, string(limits))

	var caps struct {
		MaxSessions int `json:"max_sessions"`
	}
	s.call(t, "server.capabilities", nil, &caps)
	require.Positive(t, caps.MaxSessions)
	require.LessOrEqual(t, caps.MaxSessions, (120-64)/2, "the cap leaves the runtime its threads")

	made, refusal := createUntilRefused(t, s.socket, map[string]any{"program": "cat"}, 200)
	require.Equal(t, int64(rpc.CodeCapacity), refusal.Code, refusal.Message)
	require.Len(t, made, caps.MaxSessions, refusal.Message)
	t.Logf("cap %d under RLIMIT_NPROC 120, then: %s", caps.MaxSessions, refusal.Message)
	requireServesOn(t, s, made)

	// A closed session's slot is free again.
	s.call(t, "session.close", map[string]any{"session": made[len(made)-1]}, nil)
	s.call(t, "session.create", map[string]any{"program": "cat"}, nil)
}
