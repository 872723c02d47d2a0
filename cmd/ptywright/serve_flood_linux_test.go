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
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// floodBytes is how much the flooding child writes.
const floodBytes = 100 << 20

// TestServeFloodRSS floods `ptywright serve` with 100 MB of output from
// one session while a client subscribed to its notifications reads every
// session.output, and samples the server's resident memory as it goes.
// Everything the server keeps is bounded (screen, scrollback, transcript,
// the notifier's coalesced state), so its RSS must level off: what it
// holds once the first quarter of the run is over is all it ever needs,
// give or take the garbage collector's slack. The figures are logged.
func TestServeFloodRSS(t *testing.T) {
	dir, err := os.MkdirTemp("", "ptwflood")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(dir, "serve.sock")}
	// The plain binary even under -race: the race detector's shadow memory
	// would be measured, not the server's.
	s.cmd = exec.Command(cappedBinary(t), "serve", "--socket", s.socket)
	s.cmd.Stderr = s.stderr
	require.NoError(t, s.cmd.Start())
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill() // Best effort: the test failed before stopping it.
			<-s.done
		}
	})
	var nc net.Conn
	deadline := time.Now().Add(patience)
	for nc == nil {
		if nc, err = net.Dial("unix", s.socket); err != nil {
			nc = nil
			require.True(t, time.Now().Before(deadline), "serve did not listen; stderr:\n%s", s.stderr)
			time.Sleep(10 * time.Millisecond)
		}
	}
	defer nc.Close()
	in := bufio.NewReaderSize(nc, 1<<20)
	send := func(id int, method string, params any) {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		require.NoError(t, err)
		_, err = nc.Write(append(b, '\n'))
		require.NoError(t, err)
	}
	send(1, "server.set_notifications", map[string]any{"enabled": true})
	line := "the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	send(2, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", fmt.Sprintf("yes '%s' | head -c %d", line, floodBytes)}})

	idle, err := rss(s.cmd.Process.Pid)
	require.NoError(t, err)
	var (
		mu      sync.Mutex
		samples []int64 // RSS in KiB, with the output read so far
		read    []int64
	)
	got := int64(0)
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // Owned by this test: stops when stop closes.
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			kb, err := rss(s.cmd.Process.Pid)
			if err != nil {
				continue // Reported below if it never worked.
			}
			mu.Lock()
			samples, read = append(samples, kb), append(read, got)
			mu.Unlock()
		}
	}()
	var note struct {
		Method string `json:"method"`
		Params struct {
			Output string `json:"output"`
		} `json:"params"`
	}
	for {
		b, err := in.ReadBytes('\n')
		require.NoError(t, err)
		if !bytes.Contains(b, []byte(`"method":"session.`)) {
			continue
		}
		note.Method, note.Params.Output = "", ""
		require.NoError(t, json.Unmarshal(b, &note))
		if note.Method == "session.output" {
			mu.Lock()
			got += int64(len(note.Params.Output))
			mu.Unlock()
		}
		if note.Method == "session.exited" {
			break
		}
	}
	close(stop)
	<-sampled
	end, err := rss(s.cmd.Process.Pid)
	require.NoError(t, err)

	require.Positive(t, got)
	// The first quarter of the run warms up (screen, scrollback and
	// transcript filling to their bounds, the GC finding its pace).
	require.GreaterOrEqual(t, len(samples), 8, "too few samples")
	q := len(samples) / 4
	atQuarter, peak, peakLate := samples[q], int64(0), int64(0)
	for i, kb := range samples {
		peak = max(peak, kb)
		if i >= q {
			peakLate = max(peakLate, kb)
		}
	}
	t.Logf("server RSS: idle %d MiB, after a quarter of the run (%d MB read) %d MiB, peak %d MiB, peak after the first quarter %d MiB, at exit %d MiB (%d samples, %d MB of session.output read)",
		idle>>10, read[q]>>20, atQuarter>>10, peak>>10, peakLate>>10, end>>10, len(samples), got>>20)
	require.Less(t, peakLate-atQuarter, int64(64<<10), "the server's RSS grew with the flood")
}

// rss returns a process's resident set in KiB.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
