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
//
// A closed session stays readable (Snapshot, Transcript, ExitStatus):
// it keeps its screen and transcript, as after the exit (see Kill), and
// little else; its goroutines and read buffers are gone. Nothing the
// library runs refers to it once Close returns, so all of its memory is
// the garbage collector's as soon as the caller lets the session go.
//
// A process that dies without closing its sessions (a crash, SIGKILL)
// takes their children with it on Linux: each is started with a
// parent-death signal, SIGKILL (a set-user-ID program clears it). macOS
// has no such signal: there a child gets only the SIGHUP of its terminal's
// hangup, which a program that ignores SIGHUP survives. Either way the
// hangup reaches the processes still in the terminal's foreground, and
// nothing else the program started.
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
	var det *proctree.Detached
	if !s.opts.KeepDetached {
		// Before any signal: once the child dies its orphans lose their
		// parent link.
		det = proctree.Track(s.proc.pid(), s.since, s.marker)
	}
	select {
	case <-s.exited:
	default:
		_ = s.proc.signalGroup(SignalHup, true)  // Best effort: the tty is going away.
		_ = s.proc.signalGroup(SignalTerm, true) // Best effort: SIGKILL follows.
		t := time.NewTimer(grace)
		select {
		case <-s.exited:
		case <-t.C:
		}
		t.Stop()
	}
	// Kill whatever is left of the group, grandchildren holding the tty
	// included; this also lets a child that ignored SIGTERM exit. The
	// unreaped child keeps its pid, group and session id ours until reap.
	_ = s.proc.signalGroup(SignalKill, true) // Best effort: the group may be gone, or the pid free (not Linux).
	if !exitedFirst || !det.SessionEmpty() {
		proctree.KillSession(s.proc.pid())
	}
	<-s.exited
	s.proc.reap()
	det.End(grace)

	err := s.proc.master.Close() // Unblocks the reader and the reply writer: the fd is non-blocking.
	s.stopReplies()
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

// dropRaw closes the raw sink of a Start that failed, and removes the file
// if Start created it: it would refuse the corrected retry (ErrFileExists).
func (s *Session) dropRaw(created bool) {
	s.closeRaw()
	if created {
		_ = os.Remove(s.opts.RawTranscriptPath) // Best effort: the start's error matters more.
	}
}

func (s *Session) abortRecording() {
	if s.rec != nil {
		s.rec.abort()
		s.rec = nil
	}
}

var _ io.Closer = (*Session)(nil)
