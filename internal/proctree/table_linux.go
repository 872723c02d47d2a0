//go:build linux

package proctree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// The process table, as every Close in this process reads it.
//
// Close looks at every process on the machine for what its session left
// behind (Detached, KillSession). Reading each one's stat and environment
// for every Close made closing N sessions on a host of M processes cost
// N×M file reads, each an open, a read and a close (2,000 sessions of
// sleep took minutes). The table keeps what it read instead:
//
//   - A process is read once. The listing of /proc gives each pid with the
//     inode number of its directory, which procfs hands out afresh
//     (get_next_ino) when it first shows a process and drops when the
//     process is reaped: a pid listed with the inode it had in the last
//     listing is the process read then. Only a pid with a new inode is
//     read (its stat; its environment once a Close asks for its markers).
//     An inode dropped under memory pressure only costs a read again.
//   - What is kept cannot turn wrong in a way that spares a session's
//     process. A start time never changes. A session id changes only to
//     the process's own pid (setsid) and a parent only to a reaper, when
//     the parent dies: the ones kept name a session the process was in and
//     a parent it had, so they still say where it came from. The markers
//     are those of the environment first read; an exec may scrub them,
//     and the process still descends from the session. A process first
//     read between its fork and an exec that gave it a marker its parent
//     did not have is the one this misses.
//   - Closes share listings: one that asks while a listing is under way
//     gets the next, which starts after it asked and serves every Close
//     that asked meanwhile (Server.Close closes all its sessions at once).
//
// A listing reads about 1.5 µs per process here, a stat or environ file
// 15-20 µs: a Close costs a few listings and the reads of its own
// processes.

// host is this process's view of the machine's process table: one, as the
// machine has one, shared by every session's Close.
var host table

// table remembers the processes it read, by pid.
type table struct {
	listMu sync.Mutex // held by the listing under way, and by those waiting for the next
	procs  map[int]*procEntry

	mu      sync.Mutex // guards started and last
	started uint64     // listings begun
	last    *listing   // the latest listing done
}

// listing is one look at the processes on the machine.
type listing struct {
	procs []*procEntry
	// partial: a process listed could not be read (it ended meanwhile, or
	// a read failed); some process may be missing.
	partial bool
}

// procEntry is one process as the table first read it.
type procEntry struct {
	pid  int
	ino  uint64   // the inode of /proc/PID: the process's identity while listed
	stat procStat // as first read: start time, parent, session (see above)

	mu     sync.Mutex // guards envSet and marks
	envSet bool       // marks holds the environment's MarkerEnv
	marks  string     // MarkerEnv's value, "" without it
}

// list returns a listing begun after the call: what a Close sees exists
// from then on.
func (t *table) list() *listing {
	t.mu.Lock()
	want := t.started + 1
	t.mu.Unlock()
	t.listMu.Lock()
	defer t.listMu.Unlock()
	t.mu.Lock()
	if t.started >= want { // One began after the call, and is done.
		l := t.last
		t.mu.Unlock()
		return l
	}
	t.started++
	t.mu.Unlock()
	l := t.read()
	t.mu.Lock()
	t.last = l
	t.mu.Unlock()
	return l
}

// read lists /proc and reads the processes it does not know; listMu is
// held.
func (t *table) read() *listing {
	ents, err := readProcDir()
	l := &listing{procs: make([]*procEntry, 0, len(ents)), partial: err != nil}
	next := make(map[int]*procEntry, len(ents))
	for _, e := range ents {
		p := t.procs[e.pid]
		if p == nil || p.ino != e.ino || e.ino <= 1 { // 1: procfs could not tell.
			st, ok := readProcStat(e.pid)
			if !ok {
				l.partial = true
				continue
			}
			p = &procEntry{pid: e.pid, ino: e.ino, stat: st}
		}
		next[e.pid] = p
		l.procs = append(l.procs, p)
	}
	t.procs = next
	return l
}

// hasMarker reports whether the process's environment lists marker in
// MarkerEnv, reading it the first time it can be read. An environment that
// cannot be read now (an exec under way shows none, a zombie has none) is
// read again next time; one we may not read (another uid, a non-dumpable
// process) counts as without. buf is reused from call to call.
func (p *procEntry) hasMarker(marker string, buf *[]byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.envSet {
		marks, ok := readMarkers(p.pid, buf)
		if !ok {
			return false
		}
		p.envSet, p.marks = true, marks
	}
	return p.marks != "" && HasMarker(p.marks, marker)
}

// readMarkers returns MarkerEnv's value in pid's environment, and whether
// the environment said (false: it is empty or gone, for now).
func readMarkers(pid int, buf *[]byte) (string, bool) {
	data, err := readProc(procPath(pid, "environ"), (*buf)[:0], false)
	*buf = data
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		return "", true
	}
	if err != nil || len(data) == 0 {
		return "", false
	}
	prefix := []byte(MarkerEnv + "=")
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v), true
		}
	}
	return "", true
}

// procDirent is a process in the listing of /proc.
type procDirent struct {
	pid int
	ino uint64
}

// readProcDir lists the processes in /proc with the inode numbers of
// their directories (getdents64: os.ReadDir does not give them).
func readProcDir() ([]procDirent, error) {
	fd, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = unix.Close(fd) }() // Read-only: nothing to lose.
	var ents []procDirent
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ents, err
		}
		if n <= 0 {
			return ents, nil
		}
		// struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return ents, errors.New("malformed directory entry in /proc")
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if pid, ok := parseUint(name); ok && pid > 0 {
				ents = append(ents, procDirent{pid: int(pid), ino: binary.NativeEndian.Uint64(b[0:8])})
			}
			b = b[reclen:]
		}
	}
}

// procPids lists the processes in /proc.
func procPids() []int {
	ents, _ := readProcDir() // What could be read.
	pids := make([]int, len(ents))
	for i, e := range ents {
		pids[i] = e.pid
	}
	return pids
}
