//go:build linux

package proctree

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// How Close finds what a session started on Linux.
//
// A program may leave the session's process group and terminal session
// (setsid, double fork), as daemons do: the group kill and
// KillSession miss it. Close finds such processes two ways:
//
//   - The environment marker: every child gets MarkerEnv with a
//     random per-session marker, inherited by all its descendants whatever
//     they do to their group or session. /proc/PID/environ shows it for
//     every process of our uid that stays dumpable (and for all of them when
//     we are root). It costs nothing while the session runs and names
//     exactly one session, so another session's daemon, or a daemon the
//     user started outside ptywright that the child merely talked to, is
//     never touched. It misses a process that re-execs with a scrubbed
//     environment before a listing read it (see table), and a
//     non-dumpable one (prctl PR_SET_DUMPABLE 0, as hardened programs do)
//     when we are not root.
//   - The process tree, snapshotted when Close starts, before any signal:
//     whatever descends from the child by the parent ids the listings saw.
//     It covers the marker's gaps for daemons whose parent is still alive
//     (Codex 0.169's app-server daemon is the TUI's child until the TUI
//     exits), or was when a listing saw them.
//
// Both read the process table, which this process's Closes share (see
// table): a Close costs a listing of /proc and the reads of the processes
// no listing has seen, not a read of every process on the machine.
//
// Not used, and why:
//   - PR_SET_CHILD_SUBREAPER is process-wide: every orphan of every session,
//     and of anything else the embedding program (a Go test binary, an
//     agent) runs, would be reparented to this process, which would then
//     have to reap with wait(-1) and steal exit statuses from os/exec. It
//     would not say which session an orphan came from either.
//   - A cgroup v2 per session is exact but needs a delegated, writable
//     cgroup subtree, which a test binary, a container or a login shell
//     usually lacks, and clone-time placement that go-pty does not expose.
//
// Every process found is pinned with a pidfd (pidfd_open, Linux 5.3) and
// its start time checked after pinning, so a pid reused by an unrelated
// process is never signalled; without pidfds the start time is checked
// right before kill(2).

// Detached is the set of processes a session's Close ends after the group.
type Detached struct {
	marker string
	since  uint64 // the child's start time: nothing older descends from it
	procs  map[procID]*procRef
	// sessionSeen: Track's scan found a process in root's terminal
	// session other than root, or one it could not read (see
	// SessionEmpty).
	sessionSeen bool
}

// procID names a process across pid reuse.
type procID struct {
	pid   int
	start uint64
}

// procRef is one process found, pinned so that pid reuse cannot redirect a
// signal to another process.
type procRef struct {
	pid   int
	start uint64 // start time in clock ticks since boot: the process's identity
	fd    int    // pidfd, or -1 where pidfd_open is unavailable
}

// detachedKillWait bounds the wait for SIGKILLed processes to die; one in
// uninterruptible sleep (a hung NFS read) may outlast it.
const detachedKillWait = 2 * time.Second

// Track snapshots the processes descending from root (root itself
// excluded) and those carrying marker, before Close signals anything: once
// the child dies, its orphans lose their parent link. since is root's start
// time (StartTime): older processes cannot descend from root, and their
// environment is never read.
func Track(root int, since uint64, marker string) *Detached {
	d := &Detached{marker: marker, since: since, procs: map[procID]*procRef{}}
	d.scan(root)
	return d
}

// StartTime returns pid's start time, 0 if it cannot be read.
func StartTime(pid int) uint64 {
	st, _ := readProcStat(pid)
	return st.start
}

// scan adds the processes that carry the marker and, when root > 0, those
// that descend from root by parent ids, from a listing begun after the
// call (see table).
func (d *Detached) scan(root int) {
	l := host.list()
	self := os.Getpid()
	var children map[int][]*procEntry // by parent pid
	var environ []byte
	if root > 0 && d.isRoot(root) {
		children = make(map[int][]*procEntry)
	}
	if root > 0 && l.partial {
		d.sessionSeen = true // A process could not be read: it may have been one.
	}
	for _, p := range l.procs {
		if p.pid == self || p.pid == root {
			continue
		}
		if root > 0 && p.stat.sid == root {
			d.sessionSeen = true
		}
		if p.stat.start < d.since {
			continue
		}
		if children != nil {
			children[p.stat.ppid] = append(children[p.stat.ppid], p)
		}
		if d.procs[procID{p.pid, p.stat.start}] == nil && p.hasMarker(d.marker, &environ) {
			d.add(p.pid, p.stat.start)
		}
	}
	// The child may have been reaped meanwhile and its pid reused by a
	// process that is none of ours: the tree counts only if root was the
	// child before and after the parent ids were read.
	if children == nil || !d.isRoot(root) {
		return
	}
	queue := append([]*procEntry(nil), children[root]...)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p.pid] {
			// A parent id the table kept may name a process that died, its
			// pid since reused: a child older than the pid's process is not
			// that process's child.
			if c.stat.start >= p.stat.start {
				queue = append(queue, c)
			}
		}
		if d.procs[procID{p.pid, p.stat.start}] == nil {
			d.add(p.pid, p.stat.start) // As listed: add checks it still holds.
		}
	}
}

// SessionEmpty reports whether Track's scan read every process and found
// none but root in the terminal session root leads. When root had exited
// before Track, nothing can join that session or fork into it any more, so
// KillSession would find nothing: Close skips that scan of /proc.
func (d *Detached) SessionEmpty() bool { return d != nil && !d.sessionSeen }

// isRoot reports whether root still names the session's child, reaped or
// not: a zombie keeps its pid and start time.
func (d *Detached) isRoot(root int) bool {
	st, ok := readProcStat(root)
	return ok && d.since != 0 && st.start == d.since
}

// add pins pid, known to have started at start, unless it is gone, dead
// (a zombie), or the pid now names another process.
func (d *Detached) add(pid int, start uint64) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // Already gone.
	}
	if err != nil {
		fd = -1 // No pidfds (ENOSYS before Linux 5.3, a seccomp filter, EMFILE): check the start time instead.
	}
	if st, ok := readProcStat(pid); !ok || st.start != start || st.dead() {
		if fd >= 0 {
			_ = unix.Close(fd) // Best effort: a pidfd we will not use.
		}
		return
	}
	d.procs[procID{pid, start}] = &procRef{pid: pid, start: start, fd: fd}
}

// End ends every process found: SIGTERM, up to grace for them to exit,
// then SIGKILL; it rescans for the marker between rounds to catch what
// they forked meanwhile, reaps those that were reparented to this process,
// and releases the pidfds.
func (d *Detached) End(grace time.Duration) {
	if d == nil {
		return
	}
	defer d.Release()
	d.scan(0) // Marked processes started since the snapshot.
	live := d.alive()
	if len(live) == 0 {
		return
	}
	for _, p := range live {
		p.signal(unix.SIGTERM)
	}
	waitGone(live, grace)
	for range 4 {
		d.scan(0)
		live = d.alive()
		if len(live) == 0 {
			break
		}
		for _, p := range live {
			p.signal(unix.SIGKILL)
		}
		waitGone(live, detachedKillWait)
	}
	for _, p := range d.procs {
		p.reap()
	}
}

// Release closes the pidfds without signalling anything.
func (d *Detached) Release() {
	if d == nil {
		return
	}
	for id, p := range d.procs {
		if p.fd >= 0 {
			_ = unix.Close(p.fd) // Best effort: nothing to do about a failed close.
		}
		delete(d.procs, id)
	}
}

func (d *Detached) alive() []*procRef {
	var live []*procRef
	for _, p := range d.procs {
		if p.alive() {
			live = append(live, p)
		}
	}
	return live
}

func (p *procRef) signal(sig unix.Signal) {
	if p.fd >= 0 {
		_ = unix.PidfdSendSignal(p.fd, sig, nil, 0) // Best effort: it may have exited.
		return
	}
	if st, ok := readProcStat(p.pid); ok && st.start == p.start {
		_ = unix.Kill(p.pid, sig) // Best effort: it may have exited.
	}
}

// alive reports whether the process still runs; a zombie does not.
func (p *procRef) alive() bool {
	if p.fd >= 0 {
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err == nil && n == 0 // A pidfd becomes readable when its process exits.
	}
	st, ok := readProcStat(p.pid)
	return ok && st.start == p.start && !st.dead()
}

// reap collects the exit status of a process that was reparented to this
// one (which happens when this process, or an ancestor that set the
// attribute for it, is a child subreaper); P_PIDFD waits for that one
// process only, so no other child's status is taken.
func (p *procRef) reap() {
	if p.fd < 0 || p.alive() {
		return
	}
	var info unix.Siginfo
	_ = unix.Waitid(unix.P_PIDFD, p.fd, &info, unix.WEXITED|unix.WNOHANG, nil) // ECHILD: not ours; init reaps it.
}

// waitGone waits up to d for the processes to exit and returns those still
// running.
func waitGone(procs []*procRef, d time.Duration) []*procRef {
	deadline := time.Now().Add(d)
	for {
		var live []*procRef
		pinned := true
		for _, p := range procs {
			if p.alive() {
				live = append(live, p)
				pinned = pinned && p.fd >= 0
			}
		}
		left := time.Until(deadline)
		if len(live) == 0 || left <= 0 {
			return live
		}
		procs = live
		if !pinned {
			time.Sleep(min(left, 10*time.Millisecond))
			continue
		}
		fds := make([]unix.PollFd, len(live))
		for i, p := range live {
			fds[i] = unix.PollFd{Fd: int32(p.fd), Events: unix.POLLIN}
		}
		_, _ = unix.Poll(fds, int(left.Milliseconds())+1) // EINTR or a wake-up: the loop rechecks.
	}
}
