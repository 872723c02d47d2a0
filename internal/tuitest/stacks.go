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
