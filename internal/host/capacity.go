package host

import (
	"runtime/metrics"
	"sync"

	"ptywright"
)

// Capacity bounds what one server holds: its open sessions (a session
// counts from before its spawn until its Close returns), the Go runtime's
// memory at the moment a session is asked for, and under RLIMIT_AS the
// process's virtual size (a session is refused once it is within 512 MiB
// of the limit, or past half of it, read at every Enter so that a limit
// set on a running process counts: the runtime aborts the whole process
// when it cannot map memory or start a thread). Past any of them,
// Enter refuses with a *ptywright.CapacityError and nothing already
// running is touched. Both faces (rpc, mcpserver) take a slot for every
// session they start, adapters' included.
type Capacity struct {
	limits Limits

	mu   sync.Mutex
	open int
}

// NewCapacity returns a Capacity holding to l (a zero field: no cap).
func NewCapacity(l Limits) *Capacity {
	return &Capacity{limits: l}
}

// Limits returns the caps (0: none).
func (c *Capacity) Limits() Limits { return c.limits }

// Open returns how many slots are taken.
func (c *Capacity) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open
}

// Enter takes a slot for one session. leave gives it back; calling it
// more than once gives back one slot.
func (c *Capacity) Enter() (leave func(), err error) {
	if err := c.CheckMemory(); err != nil {
		return nil, err
	}
	l := c.limits
	c.mu.Lock()
	defer c.mu.Unlock()
	if l.MaxSessions > 0 && c.open >= l.MaxSessions {
		return nil, &ptywright.CapacityError{Limit: "sessions", Max: int64(l.MaxSessions), InUse: int64(c.open)}
	}
	c.open++
	return sync.OnceFunc(func() {
		c.mu.Lock()
		c.open--
		c.mu.Unlock()
	}), nil
}

// CheckMemory is Enter's memory and address-space checks alone, taking
// nothing: for a replacement (adapter.resume) that must not close what it
// replaces when the new session would be refused anyway.
func (c *Capacity) CheckMemory() error {
	l := c.limits
	if l.MaxMemory > 0 {
		if inUse := goMemory(); inUse >= l.MaxMemory {
			return &ptywright.CapacityError{Limit: "memory", Max: l.MaxMemory, InUse: inUse}
		}
	}
	if as, ok := rlimitAS(); ok {
		limit := max(as-asReserve, as/2)
		if inUse := vmSize(); inUse >= limit {
			return &ptywright.CapacityError{Limit: "address_space", Max: limit, InUse: inUse}
		}
	}
	return nil
}

// goMemory is the memory the Go runtime holds from the OS now: all it has
// mapped less what it has given back.
func goMemory() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}
