package rpc

import (
	"context"
	"sync"
)

// MaxInFlightBytes bounds the bytes of the requests one connection has
// running at once. A request's frame stays in memory while it runs, so
// MaxInFlight alone would let one client hold MaxInFlight frames of
// MaxFrameBytes, a gigabyte, with waits that never end. When a frame
// would take the connection over the bound, the server stops reading from
// that connection until enough of its requests have finished, as it does
// at MaxInFlight; a frame alone always runs. A connection so holds at most
// MaxInFlightBytes plus the one frame read and waiting.
const MaxInFlightBytes = 64 << 20

// byteBudget counts the bytes a connection's requests in flight hold.
type byteBudget struct {
	mu    sync.Mutex
	max   int
	used  int
	freed chan struct{} // closed, and replaced, by every release
}

func newByteBudget(max int) *byteBudget {
	return &byteBudget{max: max, freed: make(chan struct{})}
}

// acquire takes n bytes, waiting until they fit or nothing is held, or
// until ctx ends.
func (b *byteBudget) acquire(ctx context.Context, n int) error {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives back n bytes acquire took.
func (b *byteBudget) release(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
}
