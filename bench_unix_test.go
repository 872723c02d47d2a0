//go:build unix

package ptywright_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// BenchmarkIdleWait reports the CPU this process spends while 100 sessions
// each have a wait blocked on output that never comes. Waits are
// event-driven, so it should be nothing.
func BenchmarkIdleWait(b *testing.B) {
	const sessions = 100
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{}, sessions)
	for range sessions {
		s := sh(b, "sleep 60")
		go func() {
			_, _ = s.Wait(ctx, ptywright.ContainsText("never"))
			done <- struct{}{}
		}()
	}
	time.Sleep(200 * time.Millisecond) // let start-up settle
	var idle time.Duration
	for b.Loop() {
		before := tuitest.CPUTime(b)
		time.Sleep(500 * time.Millisecond)
		idle += tuitest.CPUTime(b) - before
	}
	cancel()
	for range sessions {
		<-done
	}
	b.ReportMetric(float64(idle.Microseconds())/(float64(b.N)*0.5), "cpu-µs/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkRawWaitLatency is the floor under BenchmarkWaitLatency alone:
// the same stamp child on a bare PTY (echo off), its master read by one
// goroutine through the runtime poller until the marker has come, without
// a Session. BenchmarkWaitLatency measures it too, in the same run.
func BenchmarkRawWaitLatency(b *testing.B) {
	r := tuitest.StartRawStamp(b, childModeEnv+"=stamp")
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		lat = append(lat, r.RoundTrip(b, i))
	}
	reportLatencies(b, lat)
}

// BenchmarkWaitLatency measures the time from the child writing a marker to
// Wait returning with it matched. Before each wait, the same stamp child
// on a bare PTY answers a line read without a Session
// (tuitest.RawStamp): raw-p50-µs is that floor in the same moments, and
// over-raw-p50-µs what the session adds to it at the median, which the
// shared machine's load, moving the floor several-fold within minutes,
// moves much less.
//
// The session's latency is also split where its feed of the marker begins
// (the Output tap sees the bytes first): write-to-feed is the kernel's and
// the runtime poller's part, the floor again; feed-to-return is
// ptywright's own (screen, transcript, the wake-up, the look, the
// evidence). A marker cut across two reads gives no split.
func BenchmarkWaitLatency(b *testing.B) {
	r := tuitest.StartRawStamp(b, childModeEnv+"=stamp")
	clock := &feedClock{}
	s := startChildOutput(b, "stamp", clock)
	ctx := context.Background()
	var lat, raw, kernel, ours []time.Duration
	i := 0
	for b.Loop() {
		i++
		raw = append(raw, r.RoundTrip(b, i))
		clock.expect(fmt.Sprintf("M%d T=", i))
		send(b, s, ptywright.Text(fmt.Sprintf("%d\n", i)))
		res, err := s.Wait(ctx, ptywright.ScreenRegex(fmt.Sprintf(`M%d T=\d+`, i)))
		require.NoError(b, err)
		returned := time.Now()
		at, ok := tuitest.StampOf(s.Transcript(ptywright.NoRedaction()), i)
		require.True(b, ok, "stamp in %q", res.TranscriptTail)
		lat = append(lat, returned.Sub(at))
		if fed := clock.fed(); !fed.IsZero() {
			kernel, ours = append(kernel, fed.Sub(at)), append(ours, returned.Sub(fed))
		}
	}
	reportLatencies(b, lat)
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1e3
	}
	b.ReportMetric(p50(raw), "raw-p50-µs")
	b.ReportMetric(p50(lat)-p50(raw), "over-raw-p50-µs")
	if len(ours) > 0 {
		b.ReportMetric(p50(kernel), "write-to-feed-p50-µs")
		b.ReportMetric(p50(ours), "feed-to-return-p50-µs")
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

// BenchmarkClose measures Close of a session whose program has exited (a
// test's usual end), which looks through /proc for what the program left
// behind.
func BenchmarkClose(b *testing.B) {
	var closing time.Duration
	for b.Loop() {
		s, err := ptywright.Start(ptywright.Options{Program: "/bin/true"})
		require.NoError(b, err)
		_, err = s.Wait(b.Context(), ptywright.ProcessExited())
		require.NoError(b, err)
		start := time.Now()
		require.NoError(b, s.Close())
		closing += time.Since(start)
	}
	b.ReportMetric(float64(closing.Microseconds())/float64(b.N), "close-µs")
	b.ReportMetric(0, "ns/op")
}
