//go:build linux

package proctree

import (
	"runtime"
	"sync"
	"syscall"
)

// Children die with this process, even when it is killed with SIGKILL
// and no Close runs: each is started with a parent-death signal
// (PR_SET_PDEATHSIG, SIGKILL). Without it only the terminal's hangup,
// when the PTY master closes with this process, would reach the child,
// and a program that ignores SIGHUP (under nohup, say) would live on.
//
// The kernel sends that signal when the thread that forked the child
// exits, not the process (go.dev/issue/27505), and the Go runtime ends a
// thread whenever a goroutine locked to it returns; an unlocked fork may
// land on such a thread. So every child is forked on one thread kept for
// that: a goroutine locked to it runs the forks, and returns, ending the
// thread, only once every child it forked has been reaped. While no
// session has a child the thread does not exist.

// StartTied runs start (exec.Cmd.Start, whose SysProcAttr is attr) so that
// the child dies with this process, and returns release, which must be
// called once the child has been reaped (see the comment above). When
// start fails, release has been called.
func StartTied(attr *syscall.SysProcAttr, start func() error) (release func(), err error) {
	attr.Pdeathsig = syscall.SIGKILL
	return forker.spawn(start)
}

// forker is the thread every child is forked on: one, as the signal is
// tied to a thread of this process.
var forker spawner

// spawner owns the forking thread.
type spawner struct {
	mu   sync.Mutex
	live int         // children forked on the thread and not reaped, and forks under way
	reqs chan func() // to the thread's goroutine; nil while there is none
}

func (s *spawner) spawn(start func() error) (release func(), err error) {
	s.mu.Lock()
	s.live++
	if s.reqs == nil {
		s.reqs = make(chan func())
		go s.run(s.reqs)
	}
	reqs := s.reqs
	s.mu.Unlock()
	done := make(chan error, 1)
	reqs <- func() { done <- start() }
	if err := <-done; err != nil {
		s.release()
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(s.release) }, nil
}

func (s *spawner) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live--
	if s.live == 0 {
		close(s.reqs)
		s.reqs = nil
	}
}

// run forks on its own thread until no child needs the thread.
func (s *spawner) run(reqs <-chan func()) {
	// Never unlocked: returning ends the thread, which is safe only now
	// that no child it forked is left.
	runtime.LockOSThread()
	for f := range reqs {
		f()
	}
}
