package host

import "fmt"

// Limits are a server's caps, derived from the process's own limits by
// DefaultLimits unless the operator sets them (serve --max-sessions,
// --max-memory).
type Limits struct {
	// MaxSessions caps the open sessions; 0 means none.
	MaxSessions int
	// MaxMemory caps the Go runtime's memory (mapped, less what it gave
	// back) at the moment a session is asked for; 0 means none.
	MaxMemory int64
	// Why says which limit gave MaxSessions and MaxMemory, for the log.
	Why string
}

// Per-session costs DefaultLimits assumes. A session holds a PTY master and
// a pidfd, and may hold a raw transcript and a recording; its program is
// at least one task, most often more (a shell and what it runs).
const (
	fdsPerSession   = 4
	tasksPerSession = 2
	// fdReserve is kept for connections, listeners and the runtime.
	fdReserve = 128
	// taskReserve is kept for the runtime's own threads: the Go runtime
	// aborts the whole process when it cannot create one.
	taskReserve = 64
	// asReserve is the address space kept free under RLIMIT_AS for the
	// runtime to grow into (heap arenas, thread stacks).
	asReserve = 512 << 20
)

// DefaultLimits derives the caps from the process's limits: RLIMIT_NOFILE
// (the soft limit, which Go raises to the hard one at start on Linux and
// macOS), RLIMIT_NPROC when it applies (not to root), and on
// Linux the cgroup's memory.max (three quarters of it for this process's
// own memory: its children count against it too).
func DefaultLimits() Limits {
	var l Limits
	capSessions := func(n int, why string) {
		n = max(n, 1)
		if l.MaxSessions == 0 || n < l.MaxSessions {
			l.MaxSessions, l.Why = n, why
		}
	}
	if nofile, ok := rlimitNofile(); ok {
		capSessions(int((nofile-fdReserve)/fdsPerSession), fmt.Sprintf("RLIMIT_NOFILE %d", nofile))
	}
	if nproc, used, ok := rlimitNproc(); ok {
		capSessions(int((nproc-used-taskReserve)/tasksPerSession), fmt.Sprintf("RLIMIT_NPROC %d with %d tasks of this user running", nproc, used))
	}
	if mem, ok := cgroupMemoryMax(); ok {
		l.MaxMemory = mem / 4 * 3
	}
	return l
}

// ResolveLimits is DefaultLimits with an operator's choices: for each of
// maxSessions and maxMemory, 0 keeps the default and a negative value
// means no cap. Capacity's watch of RLIMIT_AS always stays: past it the
// runtime aborts the whole process.
func ResolveLimits(maxSessions int, maxMemory int64) Limits {
	l := DefaultLimits()
	switch {
	case maxSessions > 0:
		l.MaxSessions, l.Why = maxSessions, "set by the operator"
	case maxSessions < 0:
		l.MaxSessions, l.Why = 0, "no cap, set by the operator"
	}
	switch {
	case maxMemory > 0:
		l.MaxMemory = maxMemory
	case maxMemory < 0:
		l.MaxMemory = 0
	}
	return l
}
