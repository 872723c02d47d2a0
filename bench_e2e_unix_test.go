//go:build unix

package ptywright_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"testing"
	"time"

	gopty "github.com/aymanbagabas/go-pty"
	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/internal/workload"
	"ptywright/rpc"
)

// e2eWorkloadSize is the size of each generated workload.
const e2eWorkloadSize = 5 << 20

type e2eWorkload struct {
	name string
	size ptywright.Size
	data []byte
}

func e2eWorkloads() []e2eWorkload {
	var ws []e2eWorkload
	for _, size := range []ptywright.Size{{Rows: 24, Cols: 80}, {Rows: 60, Cols: 200}} {
		ws = append(ws,
			e2eWorkload{"plain", size, plainScroll(e2eWorkloadSize)},
			e2eWorkload{"mixed", size, workload.MixedRedraws(e2eWorkloadSize, size.Rows)},
			e2eWorkload{"claude", size, workload.ClaudeRedraws(e2eWorkloadSize, size.Rows, size.Cols)},
		)
	}
	return ws
}

// BenchmarkEndToEnd measures, in the same run and interleaved so that the
// shared machine's load hits all three alike, how fast `cat` of a 5 MB
// workload gets through
//
//   - raw: a PTY of the same size, read and thrown away (the limit);
//   - full: a Session, from Start until Wait(ProcessExited) returns
//     (screen, transcript, waiters);
//   - rpc: a JSON-RPC server over a Unix socket, from sending
//     session.create until the client has read session.exited, with
//     notifications on (session.changed and the redacted session.output).
//
// It reports MB/s for each, full/raw and rpc/raw as shares, the same
// shares of the CPU spent (this process's and cat's), and the CPU this
// process spent and the bytes it allocated per MB on each.
func BenchmarkEndToEnd(b *testing.B) {
	dir, err := os.MkdirTemp("", "pwe2e")
	require.NoError(b, err)
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	cl := newE2EClient(b, dir)
	for _, w := range e2eWorkloads() {
		b.Run(fmt.Sprintf("%s/%dx%d", w.name, w.size.Cols, w.size.Rows), func(b *testing.B) {
			path := filepath.Join(dir, "out")
			require.NoError(b, os.WriteFile(path, w.data, 0o600))
			var raw, full, viaRPC, rawCPU, fullCPU, rpcCPU time.Duration
			var rawChild, fullChild, rpcChild time.Duration
			var fullAlloc, rpcAlloc uint64
			var fullShares, rpcShares []float64
			for b.Loop() {
				c0, k0 := tuitest.CPUTime(b), tuitest.ChildCPUTime(b)
				r := rawPTYRead(b, path, w.size)
				c1, k1, a1 := tuitest.CPUTime(b), tuitest.ChildCPUTime(b), heapAllocs()
				f := sessionRead(b, path, w.size)
				c2, k2, a2 := tuitest.CPUTime(b), tuitest.ChildCPUTime(b), heapAllocs()
				v := cl.run(b, path, w.size)
				c3, k3, a3 := tuitest.CPUTime(b), tuitest.ChildCPUTime(b), heapAllocs()
				rawChild, fullChild, rpcChild = rawChild+k1-k0, fullChild+k2-k1, rpcChild+k3-k2
				raw, full, viaRPC = raw+r, full+f, viaRPC+v
				fullShares = append(fullShares, r.Seconds()/f.Seconds())
				rpcShares = append(rpcShares, r.Seconds()/v.Seconds())
				rawCPU, fullCPU, rpcCPU = rawCPU+c1-c0, fullCPU+c2-c1, rpcCPU+c3-c2
				fullAlloc, rpcAlloc = fullAlloc+a2-a1, rpcAlloc+a3-a2
			}
			mb := float64(len(w.data)) * float64(b.N) / 1e6
			b.ReportMetric(mb/raw.Seconds(), "raw-MB/s")
			b.ReportMetric(mb/full.Seconds(), "full-MB/s")
			b.ReportMetric(mb/viaRPC.Seconds(), "rpc-MB/s")
			b.ReportMetric(raw.Seconds()/full.Seconds(), "full/raw")
			b.ReportMetric(raw.Seconds()/viaRPC.Seconds(), "rpc/raw")
			// The same shares as the median of each iteration's own: the
			// three legs of one iteration run back to back, so a burst of
			// load on the machine that slows one leg moves one pair, where
			// it moves the totals.
			b.ReportMetric(median(fullShares), "full/raw-p50")
			b.ReportMetric(median(rpcShares), "rpc/raw-p50")
			// This process's CPU per MB (the child's not included): what
			// each path costs, which the shared machine's load moves less
			// than the wall clock.
			// The shares of CPU, cat's included (each leg waits for its
			// cat): what the wall-clock shares come to when the machine
			// has no core to spare, as on a loaded one, and which its
			// load moves much less. The kernel's work for the PTY outside
			// both processes is left out of all three.
			b.ReportMetric((rawCPU+rawChild).Seconds()/(fullCPU+fullChild).Seconds(), "full/raw-cpu")
			b.ReportMetric((rawCPU+rawChild).Seconds()/(rpcCPU+rpcChild).Seconds(), "rpc/raw-cpu")
			b.ReportMetric(float64(rawCPU.Microseconds())/mb, "raw-cpu-µs/MB")
			b.ReportMetric(float64(fullCPU.Microseconds())/mb, "full-cpu-µs/MB")
			b.ReportMetric(float64(rpcCPU.Microseconds())/mb, "rpc-cpu-µs/MB")
			// Bytes allocated per MB of output (the rpc figure includes this
			// benchmark's client reading the lines): unlike time, the load
			// does not move it, so it shows a saved copy run to run.
			b.ReportMetric(float64(fullAlloc)/mb/1e6, "full-alloc-MB/MB")
			b.ReportMetric(float64(rpcAlloc)/mb/1e6, "rpc-alloc-MB/MB")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// median returns the middle value of xs (the mean of the two middle ones
// for an even count), sorting xs.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// heapAllocs returns the bytes this process has allocated on the heap so
// far (runtime/metrics: no stop of the world, unlike ReadMemStats).
func heapAllocs() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// rawPTYRead runs cat of path on a new PTY of the given size and reads the
// master until the child has gone, throwing the bytes away.
func rawPTYRead(b *testing.B, path string, size ptywright.Size) time.Duration {
	start := time.Now()
	pt, err := gopty.New()
	require.NoError(b, err)
	upt := pt.(gopty.UnixPty)
	require.NoError(b, upt.SetWinsize(&gopty.Winsize{Row: uint16(size.Rows), Col: uint16(size.Cols)}))
	cmd := pt.Command("/bin/cat", path)
	require.NoError(b, cmd.Start())
	require.NoError(b, upt.Slave().Close()) // EOF (EIO) once cat exits
	buf := make([]byte, 32<<10)
	n := 0
	for {
		k, err := upt.Master().Read(buf)
		n += k
		if err != nil {
			break
		}
	}
	require.NoError(b, cmd.Wait())
	elapsed := time.Since(start)
	_ = upt.Master().Close() // Best effort: the benchmark is done with it.
	require.Positive(b, n)
	return elapsed
}

// sessionRead runs cat of path in a Session until the child has exited and
// its output is parsed.
func sessionRead(b *testing.B, path string, size ptywright.Size) time.Duration {
	start := time.Now()
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/cat", Args: []string{path}, Size: size})
	require.NoError(b, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	_, err = s.Wait(ctx, ptywright.ProcessExited())
	cancel()
	require.NoError(b, err)
	elapsed := time.Since(start)
	require.NoError(b, s.Close())
	return elapsed
}

// e2eClient is a minimal NDJSON client of an in-process server on a Unix
// socket, subscribed to every session's notifications.
type e2eClient struct {
	nc net.Conn
	in *bufio.Reader
	id int
}

func newE2EClient(b *testing.B, dir string) *e2eClient {
	path := filepath.Join(dir, "s.sock")
	l, err := rpc.ListenUnix(path)
	require.NoError(b, err)
	srv := rpc.NewServer(rpc.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), l) }()
	nc, err := net.Dial("unix", path)
	require.NoError(b, err)
	c := &e2eClient{nc: nc, in: bufio.NewReaderSize(nc, 1<<20)}
	b.Cleanup(func() {
		_ = nc.Close()
		require.NoError(b, srv.Close())
		require.ErrorIs(b, <-done, rpc.ErrServerClosed)
	})
	c.call(b, "server.set_notifications", map[string]any{"enabled": true})
	return c
}

// call sends a request and reads lines until its response, returning the
// result.
func (c *e2eClient) call(b *testing.B, method string, params any) json.RawMessage {
	c.send(b, method, params)
	return c.until(b, nil)
}

func (c *e2eClient) send(b *testing.B, method string, params any) {
	c.id++
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	require.NoError(b, err)
	_, err = c.nc.Write(append(req, '\n'))
	require.NoError(b, err)
}

// until reads lines until the response to the last request has come and,
// when note is set, a line whose head (its first noteHead bytes, where
// the server puts the method) contains note: it returns the response's
// result. It reads every byte the server sends, as any client must, but
// looks at each line's head only and copies no line but the response's,
// as a client that dispatches on the method would: the client runs in
// this process and on the same two cores as the server, so scanning and
// copying every notification whole would charge the server's figures
// with the harness's work.
func (c *e2eClient) until(b *testing.B, note []byte) json.RawMessage {
	var result json.RawMessage
	prefix := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,`, c.id)
	for result == nil || note != nil {
		line, err := c.readLine()
		require.NoError(b, err)
		switch {
		case bytes.HasPrefix(line, prefix):
			line = bytes.Clone(line)
			var resp struct {
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			require.NoError(b, json.Unmarshal(line, &resp))
			require.Nil(b, resp.Error, "%s", line)
			result = resp.Result
		case note != nil && bytes.Contains(line[:min(len(line), noteHead)], note):
			note = nil
		}
	}
	return result
}

// noteHead is how much of a line until searches for a notification's
// method: `{"jsonrpc":"2.0","method":"session.exited"` fits.
const noteHead = 64

// readLine returns the next line, valid until the next call: in the
// reader's buffer unless it is longer, then assembled whole for a
// response, and only its head for a notification (until looks at nothing
// else of those).
func (c *e2eClient) readLine() ([]byte, error) {
	line, err := c.in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	whole := bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`))
	if !whole {
		line = line[:noteHead]
	}
	long := bytes.Clone(line)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = c.in.ReadSlice('\n')
		if whole {
			long = append(long, line...)
		}
	}
	return long, err
}

// run creates a session running cat of path and returns the time until
// its session.exited has been read; it closes the session afterwards.
func (c *e2eClient) run(b *testing.B, path string, size ptywright.Size) time.Duration {
	start := time.Now()
	c.send(b, "session.create", map[string]any{"program": "/bin/cat", "args": []string{path}, "rows": size.Rows, "cols": size.Cols})
	res := c.until(b, []byte(`"method":"session.exited"`))
	elapsed := time.Since(start)
	var created struct {
		Session string `json:"session"`
	}
	require.NoError(b, json.Unmarshal(res, &created))
	c.call(b, "session.close", map[string]any{"session": created.Session})
	return elapsed
}
