package ptywright

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"ptywright/internal/proctree"
)

// How a session ends: Close, and the bookkeeping that lets it end what the
// program started, detached daemons included.

// SessionMarkerEnv is the environment variable that marks every process a
// session starts. Its value is a colon-separated list of session markers:
// the child gets the list it would have inherited (a ptywright session
// started from inside another one keeps its parent's marker) with its own
// session's marker appended. Descendants inherit it across fork, exec,
// setsid and double forks, which is how Close finds the daemons a program
// detached from its terminal session (see Options.KeepDetached).
const SessionMarkerEnv = proctree.MarkerEnv

// Marker returns the session's marker: the entry this session appended to
// SessionMarkerEnv in its child's environment. Every process that inherits
// that environment carries it, which lets a caller find what the session
// started (Close uses it to end detached daemons).
func (s *Session) Marker() string { return s.marker }

// The session's process bookkeeping lives in internal/proctree; these
// names are what Start and Close call.

func newMarker() string                               { return proctree.NewMarker() }
func withMarker(env []string, marker string) []string { return proctree.WithMarker(env, marker) }
func processStart(pid int) uint64                     { return proctree.StartTime(pid) }
func killSessionMembers(sid int)                      { proctree.KillSession(sid) }

// detached is what Close ends after the process group; nil when the
// session keeps its detached daemons.
type detached struct{ d *proctree.Detached }

func trackDetached(root int, since uint64, marker string) *detached {
	return &detached{proctree.Track(root, since, marker)}
}

func (d *detached) end(grace time.Duration) {
	if d != nil {
		d.d.End(grace)
	}
}

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close ends the session: SIGTERM to the process group, SIGKILL after the
// grace period, reap; then, unless Options.KeepDetached, the same for the
// processes the program started that left the group (see
// Options.KeepDetached); and stop every goroutine. It never hangs and is
// safe to call more than once.
func (s *Session) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Session) close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()

	grace := s.opts.CloseGrace
	if grace <= 0 {
		grace = 500 * time.Millisecond
	}
	exitedFirst := isDone(s.exited)
	var det *detached
	if !s.opts.KeepDetached {
		// Before any signal: once the child dies its orphans lose their
		// parent link.
		det = trackDetached(s.proc.pid(), s.since, s.marker)
	}
	select {
	case <-s.exited:
	default:
		_ = s.proc.signalGroup(SignalHup)  // Best effort: the tty is going away.
		_ = s.proc.signalGroup(SignalTerm) // Best effort: SIGKILL follows.
		t := time.NewTimer(grace)
		select {
		case <-s.exited:
		case <-t.C:
		}
		t.Stop()
	}
	// Kill whatever is left of the group, grandchildren holding the tty
	// included; this also lets a child that ignored SIGTERM be reaped.
	_ = s.proc.signalGroup(SignalKill) // Best effort: the group may be gone.
	if !exitedFirst || det == nil || !det.d.SessionEmpty() {
		killSessionMembers(s.proc.pid())
	}
	<-s.exited
	det.end(grace)

	err := s.proc.master.Close() // Unblocks the reader: the fd is non-blocking.
	close(s.stop)
	s.wg.Wait()
	_ = s.screen.Close() // Never fails.
	s.closeRaw()
	recErr := s.rec.close() // After the reader: writes what it held back.
	s.mu.Lock()
	close(s.changed) // Wake waiters so they observe the close.
	s.changed = make(chan struct{})
	s.mu.Unlock()
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("ptywright: close pty: %w", err)
	}
	return recErr
}

func (s *Session) closeRaw() {
	if s.raw != nil {
		_ = s.raw.Close() // Best effort: nothing to do about a failed close of a sink.
		s.raw = nil
	}
}

func (s *Session) abortRecording() {
	if s.rec != nil {
		s.rec.abort()
		s.rec = nil
	}
}

var _ io.Closer = (*Session)(nil)
