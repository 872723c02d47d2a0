//go:build unix

package ptywright_test

import (
	"context"
	"testing"
	"time"

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
