//go:build unix

package tuitest

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the user and system CPU this process has used so far, for
// benchmarks that report CPU per operation.
func CPUTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ChildCPUTime is the user and system CPU of this process's children that
// have been waited for, for benchmarks whose operation runs a program: with
// CPUTime, what the whole operation cost, which a loaded machine moves
// much less than the wall clock.
func ChildCPUTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
