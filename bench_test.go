package ptywright_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/workload"
)

// plainScroll is text that scrolls the screen line after line.
func plainScroll(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	return []byte(b.String())
}

// BenchmarkScreenThroughput measures bytes per second from a child's output
// through the PTY, Session and Screen until the child has exited and its
// output is parsed.
func BenchmarkScreenThroughput(b *testing.B) {
	sizes := []ptywright.Size{{Rows: 24, Cols: 80}, {Rows: 60, Cols: 200}}
	for _, size := range sizes {
		for _, kind := range []string{"plain", "mixed"} {
			b.Run(fmt.Sprintf("%s/%dx%d", kind, size.Cols, size.Rows), func(b *testing.B) {
				data := plainScroll(256 << 10)
				if kind == "mixed" {
					data = workload.MixedRedraws(256<<10, size.Rows)
				}
				path := filepath.Join(b.TempDir(), "out")
				require.NoError(b, os.WriteFile(path, data, 0o600))
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					s, err := ptywright.Start(ptywright.Options{Program: "/bin/cat", Args: []string{path}, Size: size})
					require.NoError(b, err)
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					_, err = s.Wait(ctx, ptywright.ProcessExited())
					cancel()
					require.NoError(b, err)
					require.NoError(b, s.Close())
				}
			})
		}
	}
}

// BenchmarkScreenParse measures the Screen alone, without a process.
func BenchmarkScreenParse(b *testing.B) {
	for _, size := range []ptywright.Size{{Rows: 24, Cols: 80}, {Rows: 60, Cols: 200}} {
		for _, kind := range []string{"plain", "mixed"} {
			b.Run(fmt.Sprintf("%s/%dx%d", kind, size.Cols, size.Rows), func(b *testing.B) {
				data := plainScroll(256 << 10)
				if kind == "mixed" {
					data = workload.MixedRedraws(256<<10, size.Rows)
				}
				scr, err := ptywright.NewScreen(size)
				require.NoError(b, err)
				defer scr.Close()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					for off := 0; off < len(data); off += 4096 {
						_, _ = scr.Write(data[off:min(off+4096, len(data))])
					}
				}
			})
		}
	}
}

func reportLatencies(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkOutputToChange measures the time from the child writing a line to
// a goroutine blocked on the session seeing the new sequence (a wait on the
// transcript, evaluated on the wake-up the new sequence causes).
func BenchmarkOutputToChange(b *testing.B) {
	s := startChild(b, "stamp")
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		send(b, s, ptywright.Text(fmt.Sprintf("%d\n", i)))
		_, err := s.Wait(ctx, ptywright.TranscriptContains(fmt.Sprintf("M%d T=", i)))
		require.NoError(b, err)
		seen := time.Now()
		text := s.OutputSince(0, ptywright.NoRedaction()).Text
		at, ok := stampOf(text, i)
		require.True(b, ok)
		lat = append(lat, seen.Sub(at))
	}
	reportLatencies(b, lat)
}

// BenchmarkWaitLatency measures the time from the child writing a marker to
// Wait returning with it matched, and splits it where the session's feed
// of the marker begins (the Output tap sees the bytes first):
// write-to-feed is the kernel's and the runtime poller's part, the floor
// BenchmarkRawWaitLatency measures alone; feed-to-return is ptywright's
// own (screen, transcript, the wake-up, the look, the evidence), which the
// shared machine's load moves much less. A marker cut across two reads
// gives no split.
func BenchmarkWaitLatency(b *testing.B) {
	clock := &feedClock{}
	s := startChildOutput(b, "stamp", clock)
	ctx := context.Background()
	var lat, kernel, ours []time.Duration
	i := 0
	for b.Loop() {
		i++
		clock.expect(fmt.Sprintf("M%d T=", i))
		send(b, s, ptywright.Text(fmt.Sprintf("%d\n", i)))
		res, err := s.Wait(ctx, ptywright.ScreenRegex(fmt.Sprintf(`M%d T=\d+`, i)))
		require.NoError(b, err)
		returned := time.Now()
		at, ok := stampOf(s.Transcript(ptywright.NoRedaction()), i)
		require.True(b, ok, "stamp in %q", res.TranscriptTail)
		lat = append(lat, returned.Sub(at))
		if fed := clock.fed(); !fed.IsZero() {
			kernel, ours = append(kernel, fed.Sub(at)), append(ours, returned.Sub(fed))
		}
	}
	reportLatencies(b, lat)
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"write-to-feed-p50-µs", kernel}, {"feed-to-return-p50-µs", ours}} {
		if len(m.d) > 0 {
			slices.Sort(m.d)
			b.ReportMetric(float64(m.d[len(m.d)/2].Nanoseconds())/1e3, m.name)
		}
	}
}

// feedClock is an Output tap that notes when the session's feed of the
// chunk holding the expected marker began.
type feedClock struct {
	mu  sync.Mutex
	key []byte
	at  time.Time
}

func (c *feedClock) expect(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.at = []byte(key), time.Time{}
}

func (c *feedClock) fed() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *feedClock) Write(p []byte) (int, error) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key != nil && c.at.IsZero() && bytes.Contains(p, c.key) {
		c.at = now
	}
	return len(p), nil
}
