package tuitest

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// BlockedIn waits up to 10 s until at least n goroutines have fn (a
// function's full name, as a stack shows it) on their stacks, and fails tb
// if they never do: how a test knows a call has got as far as blocking,
// before it acts on it.
func BlockedIn(tb testing.TB, fn string, n int) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for InStacks(fn) < n {
		if time.Now().After(deadline) {
			tb.Fatalf("no goroutine reached %s", fn)
		}
		time.Sleep(time.Millisecond)
	}
}

// InStacks counts the frames of fn on all goroutines' stacks now: the
// goroutines in fn, unless fn recurses.
func InStacks(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), fn+"(")
		}
		buf = make([]byte, 2*len(buf)) // Truncated: every goroutine counts.
	}
}

// ParkedIn waits up to 10 s until at least n goroutines with fn on their
// stacks are parked (in a select, a channel operation, a lock, a sleep or
// the poller: any state but running or runnable), and fails tb if they
// never are: a test that then wakes them proves the wake-up, where one
// that merely sleeps first may act before they block.
func ParkedIn(tb testing.TB, fn string, n int) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for parkedIn(fn) < n {
		if time.Now().After(deadline) {
			tb.Fatalf("fewer than %d goroutines parked in %s", n, fn)
		}
		time.Sleep(time.Millisecond)
	}
}

// parkedIn counts the parked goroutines with fn on their stacks.
func parkedIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n == len(buf) {
			buf = make([]byte, 2*len(buf)) // Truncated: every goroutine counts.
			continue
		}
		count := 0
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			header, body, _ := strings.Cut(g, "\n")
			// "goroutine 7 [select]:", "goroutine 9 [chan receive, 2 minutes]:"
			_, state, _ := strings.Cut(header, "[")
			state, _, _ = strings.Cut(state, "]")
			state, _, _ = strings.Cut(state, ",")
			if state != "running" && state != "runnable" && strings.Contains(body, fn+"(") {
				count++
			}
		}
		return count
	}
}
