//go:build unix

package ptywright_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
		before := cpuTime(b)
		time.Sleep(500 * time.Millisecond)
		idle += cpuTime(b) - before
	}
	cancel()
	for range sessions {
		<-done
	}
	b.ReportMetric(float64(idle.Microseconds())/(float64(b.N)*0.5), "cpu-µs/s")
	b.ReportMetric(0, "ns/op")
}
