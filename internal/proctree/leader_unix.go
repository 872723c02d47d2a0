//go:build unix

package proctree

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// ErrExited is what Leader.SignalGroup returns instead of signalling a
// process group that has no program any more, or whose id may be free.
var ErrExited = errors.New("the program exited")

// Leader is a session's child: the leader of its own process group and
// terminal session, so its pid is also their id. The kernel hands the
// number out again once the child is reaped and no member of the group or
// session is left; a signal sent by it after that may reach a stranger.
// Leader orders every signal before the reap, and refuses those after.
type Leader struct {
	pid    int
	reap   func() (*os.ProcessState, error) // exec.Cmd.Wait's, run once
	mu     sync.Mutex
	exited bool // the child exited: a signal for the program is refused
	reaped bool // the pid may be free: nothing is signalled by it
}

// NewLeader watches the child pid; reap reaps it (exec.Cmd.Wait) and
// returns its state.
func NewLeader(pid int, reap func() (*os.ProcessState, error)) *Leader {
	return &Leader{pid: pid, reap: reap}
}

// Wait returns once the child exited, with its status. On Linux the
// child stays a zombie that keeps its pid, group and session id allocated
// until Reap, so that Close can still end what it left behind without
// reaching a stranger; elsewhere Wait reaps it, and nothing is signalled
// after that.
func (l *Leader) Wait() (syscall.WaitStatus, error) {
	ws, err := AwaitExit(l.pid)
	if err != nil { // Not Linux, or SIGCHLD ignored (ECHILD): reap now.
		var st syscall.WaitStatus
		st, err = l.Reap()
		ws = uint32(st)
	}
	l.mu.Lock()
	l.exited = true
	l.mu.Unlock()
	return syscall.WaitStatus(ws), err
}

// Reap reaps the child once (later calls return 0, nil). Once a zombie's
// reap starts nothing is signalled by its pid; a running child's reap (Wait
// where AwaitExit is unsupported) marks it only after, or every signal
// would be refused while the program runs.
func (l *Leader) Reap() (syscall.WaitStatus, error) {
	l.mu.Lock()
	done := l.reaped
	l.reaped = l.reaped || l.exited
	l.mu.Unlock()
	if done {
		return 0, nil
	}
	st, err := l.reap() // An *exec.ExitError only repeats the state's status.
	l.mu.Lock()
	l.reaped = true
	l.mu.Unlock()
	if st == nil {
		return 0, fmt.Errorf("reap pid %d: %w", l.pid, err)
	}
	return st.Sys().(syscall.WaitStatus), nil
}

// SignalGroup sends sig to the child's process group. ended (Close) also
// reaches what is left of the group after the child exited; otherwise a
// child that exited is ErrExited. Never once the child may be reaped.
func (l *Leader) SignalGroup(sig syscall.Signal, ended bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reaped || l.exited && !ended {
		return ErrExited
	}
	err := syscall.Kill(-l.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return ErrExited // The group is gone: there is nothing left to signal.
	}
	return err
}
