//go:build unix

package ptywright_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	gopty "github.com/aymanbagabas/go-pty"
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

// BenchmarkRawWaitLatency is the floor under BenchmarkWaitLatency: the same
// stamp child on a bare PTY (echo off), its master read by one goroutine
// through the runtime poller until the marker has come, without a Session.
// What BenchmarkWaitLatency reports above it is ptywright's own cost.
func BenchmarkRawWaitLatency(b *testing.B) {
	exe, err := os.Executable()
	require.NoError(b, err)
	pt, err := gopty.New()
	require.NoError(b, err)
	defer func() { _ = pt.Close() }() // Best effort: the benchmark is done.
	cmd := pt.Command("/bin/sh", "-c", `stty -echo; echo started; exec "$0"`, exe)
	cmd.Env = append(os.Environ(), childModeEnv+"=stamp")
	require.NoError(b, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill() // Best effort: the child has served.
		_ = cmd.Wait()
	}()
	upt := pt.(gopty.UnixPty)
	m := upt.Master()
	var got []byte
	buf := make([]byte, 64<<10)
	readUntil := func(key string) {
		for !bytes.Contains(got, []byte(key)) {
			n, err := m.Read(buf)
			require.NoError(b, err)
			got = append(got, buf[:n]...)
		}
	}
	readUntil("started\r\n")
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		got = got[:0]
		_, err := m.Write(fmt.Appendf(nil, "%d\n", i))
		require.NoError(b, err)
		key := fmt.Sprintf("M%d T=", i)
		for {
			readUntil(key)
			if at := bytes.Index(got, []byte(key)); bytes.Contains(got[at:], []byte("\r\n")) {
				break
			}
			readUntil("\r\n")
		}
		returned := time.Now()
		at, ok := stampOf(string(got), i)
		require.True(b, ok)
		lat = append(lat, returned.Sub(at))
	}
	reportLatencies(b, lat)
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
