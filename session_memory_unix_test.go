//go:build unix

package ptywright_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// idleSessions are sessions of sleep, which prints nothing: what a session
// costs before its program says anything. The test's cleanup closes those
// still held; drop lets them go.
type idleSessions struct{ all []*ptywright.Session }

func startIdle(tb testing.TB, n int) *idleSessions {
	tb.Helper()
	set := &idleSessions{}
	tb.Cleanup(set.close)
	for range n {
		s, err := ptywright.Start(ptywright.Options{Program: "sleep", Args: []string{"60"}, CloseGrace: time.Second})
		require.NoError(tb, err)
		set.all = append(set.all, s)
	}
	return set
}

// close closes every session, keeping them.
func (set *idleSessions) close() {
	for _, s := range set.all {
		_ = s.Close() // A failed Close is not what these measure.
	}
}

// drop lets the sessions go.
func (set *idleSessions) drop() { set.all = nil }

// memoryGrowth is how much live heap and stack memory grew from before, in
// bytes per n.
func memoryGrowth(beforeHeap, beforeStacks uint64, n int) (heap, stacks int64) {
	h, s := liveMemory()
	return (int64(h) - int64(beforeHeap)) / int64(n), (int64(s) - int64(beforeStacks)) / int64(n)
}

// TestClosedSessionsLetGo: an idle session is small, a closed one keeps
// only what can still be read of it (its final screen and transcript) for
// as long as its caller holds it, and once nothing does, the memory of
// every session closed is collectable: the live heap comes back to where
// it was before they started. (Before: 453 KB of heap per idle 80x24
// session, most of it read buffers and the grid of a screen nothing was
// written to, all of it kept by a closed session its caller held.)
func TestClosedSessionsLetGo(t *testing.T) {
	const n = 100
	// A first round, so that what the process keeps once (the runtime's
	// goroutine structures, the process table's listing) is in the
	// baseline.
	first := startIdle(t, n)
	first.close()
	first.drop()
	baseHeap, baseStacks := liveMemory()

	set := startIdle(t, n)
	time.Sleep(100 * time.Millisecond) // Every session's goroutines are parked.
	heap, stacks := memoryGrowth(baseHeap, baseStacks, n)
	t.Logf("idle 80x24 session: %d B heap, %d B stacks", heap, stacks)
	require.Less(t, heap+stacks, int64(48<<10), "an idle session costs more than its state")

	set.close()
	heap, _ = memoryGrowth(baseHeap, baseStacks, n)
	t.Logf("closed session, still held: %d B heap", heap)
	require.Less(t, heap, int64(24<<10), "a closed session keeps more than its screen and transcript")

	set.drop()
	after := liveHeap()
	t.Logf("all closed and dropped: %+d B heap in all", int64(after)-int64(baseHeap))
	require.Less(t, int64(after)-int64(baseHeap), int64(n*4<<10), "closed sessions are kept")
	runtime.KeepAlive(set)
}

// BenchmarkIdleSession reports what an idle 80x24 session of sleep costs
// this process, its child excluded: the live heap (B/session) and the
// heap with its goroutines' stacks (B+stacks/session), measured after
// collections with 50 sessions running.
func BenchmarkIdleSession(b *testing.B) {
	const n = 50
	var heap, stacks int64
	for b.Loop() {
		h0, s0 := liveMemory()
		set := startIdle(b, n)
		time.Sleep(50 * time.Millisecond) // Every session's goroutines are parked.
		h, s := memoryGrowth(h0, s0, n)
		heap, stacks = heap+h, stacks+s
		set.close()
		set.drop()
	}
	b.ReportMetric(float64(heap)/float64(b.N), "B/session")
	b.ReportMetric(float64(heap+stacks)/float64(b.N), "B+stacks/session")
	b.ReportMetric(0, "ns/op")
}
