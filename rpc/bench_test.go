//go:build unix

package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// rawConn is a minimal synchronous NDJSON client, so that a benchmark
// measures the server rather than the test client.
type rawConn struct {
	nc net.Conn
	in *bufio.Reader
}

func dialRaw(b *testing.B, path string) *rawConn {
	b.Helper()
	nc, err := net.Dial("unix", path)
	require.NoError(b, err)
	b.Cleanup(func() { _ = nc.Close() })
	return &rawConn{nc: nc, in: bufio.NewReaderSize(nc, 1<<20)}
}

// roundTrip sends one request line and reads lines until its response.
func (c *rawConn) roundTrip(req []byte) ([]byte, error) {
	if _, err := c.nc.Write(req); err != nil {
		return nil, err
	}
	for {
		line, err := c.in.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`)) {
			if !bytes.Contains(line, []byte(`"result":`)) {
				return nil, fmt.Errorf("error response: %s", line)
			}
			return line, nil
		}
	}
}

func (c *rawConn) mustRoundTrip(b *testing.B, req []byte) {
	b.Helper()
	_, err := c.roundTrip(req)
	require.NoError(b, err)
}

// percentile returns the p-th percentile (0-100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

func reportLatencies(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(percentile(lat, 50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 99).Microseconds()), "p99-µs")
}

// BenchmarkRequests measures request throughput and latency over the Unix
// socket with 1 and 8 concurrent clients, each with one request in flight.
// session.snapshot returns the full 24x80 cell grid (~370 KB of JSON).
func BenchmarkRequests(b *testing.B) {
	for _, method := range []string{"session.list", "session.snapshot"} {
		for _, clients := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/clients=%d", method, clients), func(b *testing.B) {
				srv := newServer(b, Options{})
				path := serveUnix(b, srv)
				setup := dialRaw(b, path)
				setup.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"session.create","params":{"program":"/bin/sh","args":["-c","printf 'hello from the benchmark'; sleep 600"]}}`+"\n"))
				setup.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"benchmark"}}}`+"\n"))
				req := []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"session":"s1"}}` + "\n")
				if method == "session.list" {
					req = []byte(`{"jsonrpc":"2.0","id":1,"method":"session.list"}` + "\n")
				}
				conns := make([]*rawConn, clients)
				for i := range conns {
					conns[i] = dialRaw(b, path)
					conns[i].mustRoundTrip(b, req) // warm up
				}
				lats := make([][]time.Duration, clients)
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for i, c := range conns {
					n := b.N / clients
					if i < b.N%clients {
						n++
					}
					wg.Go(func() {
						lat := make([]time.Duration, 0, n)
						for range n {
							t0 := time.Now()
							if _, err := c.roundTrip(req); err != nil {
								b.Error(err)
								return
							}
							lat = append(lat, time.Since(t0))
						}
						lats[i] = lat
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				reportLatencies(b, slices.Concat(lats...), elapsed)
			})
		}
	}
}

// BenchmarkNotificationLatency measures the time from a child writing a
// line to a subscribed client holding the session.output that carries it.
// The child stamps each line with its own clock at the moment it writes.
// The floor is measured between the lines, as in BenchmarkWaitLatency.
func BenchmarkNotificationLatency(b *testing.B) {
	c := stampingSession(b)
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"server.set_notifications","params":{"enabled":true,"sessions":["s1"]}}`+"\n"))
	r := tuitest.StartRawStamp(b, childModeEnv+"=stamp")

	lat, raw := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	var elapsed time.Duration
	b.ResetTimer()
	for i := range b.N {
		raw = append(raw, r.RoundTrip(b, i))
		start := time.Now()
		in := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.input","params":{"session":"s1","action":{"type":"text","value":"%d\n"}}}`+"\n", i)
		if _, err := c.nc.Write([]byte(in)); err != nil {
			b.Fatal(err)
		}
		var out strings.Builder
		for {
			line, err := c.in.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			got := time.Now()
			if !bytes.Contains(line, []byte(`"method":"session.output"`)) {
				continue
			}
			var m struct {
				Params noteParams `json:"params"`
			}
			require.NoError(b, json.Unmarshal(line, &m))
			out.WriteString(m.Params.Output)
			at, ok := tuitest.StampOf(out.String(), i)
			if !ok {
				continue // the line is not all here yet
			}
			lat = append(lat, got.Sub(at))
			elapsed += got.Sub(start) // as in BenchmarkWaitLatency: up to the line's arrival
			break
		}
	}
	b.StopTimer()
	reportLatencies(b, lat, elapsed)
	reportFloor(b, lat, raw)
}

// BenchmarkAdapterState measures adapter.state round trips over the Unix
// socket: a Lua classification of the echo plugin's 24x80 screen, with the
// lifecycle attached, per request.
func BenchmarkAdapterState(b *testing.B) {
	srv := newServer(b, Options{Plugins: newPlugins(b, echoManifest)})
	path := serveUnix(b, srv)
	c := dialRaw(b, path)
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"adapter.start","params":{"plugin":"echo"}}`+"\n"))
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"adapter.turn","params":{"adapter":"e1","send":{"intent":"send_text","params":{"text":"hello from the benchmark"}},"wait":{"timeout_ms":10000}}}`+"\n"))
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"adapter.state","params":{"adapter":"e1"}}` + "\n")
	resp, err := c.roundTrip(req) // warm up
	require.NoError(b, err)
	require.Contains(b, string(resp), `"state":"echoed"`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		if _, err := c.roundTrip(req); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatencies(b, lat, elapsed)
}

// BenchmarkWaitLatency measures the time from a child writing a line to
// the client holding the response of the session.wait that matches it. The
// wait is sent first and blocks; then the input that makes the child write
// goes out on the same connection. The child stamps the line with its own
// clock at the moment it writes, which the response's transcript_tail
// carries back.
//
// Before each wait, the same child on a bare PTY answers a line read
// without a server (tuitest.RawStamp): raw-p50-µs is the kernel's floor
// in the same moments, and over-raw-p50-µs what the server adds to it at
// the median. req/s counts the waits' time only.
func BenchmarkWaitLatency(b *testing.B) {
	c := stampingSession(b)
	r := tuitest.StartRawStamp(b, childModeEnv+"=stamp")

	lat, raw := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	var elapsed time.Duration
	b.ResetTimer()
	for i := range b.N {
		raw = append(raw, r.RoundTrip(b, i))
		start := time.Now()
		wait := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":"s1","timeout_ms":10000,"matcher":{"type":"screen_regex","value":"M%d T=\\d+"}}}`+"\n", i)
		in := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.input","params":{"session":"s1","action":{"type":"text","value":"%d\n"}}}`+"\n", i)
		if _, err := c.nc.Write([]byte(wait + in)); err != nil {
			b.Fatal(err)
		}
		for {
			line, err := c.in.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			got := time.Now()
			if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":2,`)) {
				continue
			}
			elapsed += got.Sub(start)
			// The stamp's digits, read in place: decoding the response
			// would allocate on every wait, and the GC it brings on skews
			// the next ones.
			key := fmt.Appendf(nil, "M%d T=", i)
			j := bytes.Index(line, key)
			require.GreaterOrEqual(b, j, 0, "%s", line)
			rest := line[j+len(key):]
			end := 0
			for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
				end++
			}
			ns, err := strconv.ParseInt(string(rest[:end]), 10, 64)
			require.NoError(b, err)
			lat = append(lat, got.Sub(time.Unix(0, ns)))
			break
		}
	}
	b.StopTimer()
	reportLatencies(b, lat, elapsed)
	reportFloor(b, lat, raw)
}

// reportFloor reports the raw floor the benchmark measured between its
// own round trips, and what the server adds to it at the median. The raw
// round trips run inside the timer, so ns/op, which would count them, is
// left out: stopping the timer around them reads the memory statistics,
// which stops the world before every call and skews what follows.
func reportFloor(b *testing.B, lat, raw []time.Duration) {
	slices.Sort(raw)
	b.ReportMetric(float64(percentile(raw, 50).Microseconds()), "raw-p50-µs")
	b.ReportMetric(float64((percentile(lat, 50) - percentile(raw, 50)).Microseconds()), "over-raw-p50-µs")
	b.ReportMetric(0, "ns/op")
}

// stampingSession serves one connection with session s1 running this test
// binary as the "stamp" child (it writes each line it is sent with its own
// clock), echo off, and returns the raw connection once the child has
// started.
func stampingSession(b *testing.B) *rawConn {
	b.Helper()
	exe, err := os.Executable()
	require.NoError(b, err)
	srv := newServer(b, Options{})
	path := serveUnix(b, srv)
	c := dialRaw(b, path)
	create, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "session.create", "params": map[string]any{
		"program": "/bin/sh", "args": tuitest.StampShellArgs(exe),
		"env": map[string]string{childModeEnv: "stamp"},
	}})
	require.NoError(b, err)
	c.mustRoundTrip(b, append(create, '\n'))
	c.mustRoundTrip(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"started"}}}`+"\n"))
	return c
}
