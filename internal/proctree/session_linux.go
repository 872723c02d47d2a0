//go:build linux

package proctree

import (
	"bytes"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// KillSession sends SIGKILL to every process of the terminal session
// the child leads: background jobs a job-control shell moved to process
// groups of their own survive the group kill but not this. A process that
// leaves the session (setsid) is out of its reach: see Detached.
func KillSession(sid int) {
	for _, p := range host.list().procs {
		// A process's session id changes only to its own pid: one the
		// table did not see in the session is not in it.
		if p.pid == sid || p.stat.sid != sid {
			continue
		}
		if st, ok := readProcStat(p.pid); ok && st.sid == sid && st.start == p.stat.start {
			_ = syscall.Kill(p.pid, syscall.SIGKILL) // Best effort: it may be gone.
		}
	}
}

// procStat holds the fields of /proc/PID/stat that Close uses.
type procStat struct {
	state byte
	ppid  int
	pgrp  int
	sid   int
	start uint64 // start time, clock ticks after boot
}

// dead reports a zombie or a dying process: nothing of it runs any more.
func (s procStat) dead() bool { return s.state == 'Z' || s.state == 'X' || s.state == 'x' }

// readProcStat reads /proc/PID/stat; ok is false when the process is gone.
// A listing reads it for every process it has not seen, so it reads into a
// buffer on the stack and parses in place.
func readProcStat(pid int) (procStat, bool) {
	var buf [1024]byte
	data, err := readProc(procPath(pid, "stat"), buf[:0], true)
	if err != nil {
		return procStat{}, false
	}
	// The command name (field 2) may hold spaces and parentheses: skip
	// past its last ')'. Then fields 3 (state) to 22 (starttime).
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	rest := data[i+1:]
	var st procStat
	for field := 3; field <= 22; field++ {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexAny(rest, " \n")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		rest = rest[end:]
		if field == 3 {
			if len(f) != 1 {
				return procStat{}, false
			}
			st.state = f[0]
			continue
		}
		var v uint64
		if field <= 6 || field == 22 {
			var ok bool
			if v, ok = parseUint(f); !ok {
				return procStat{}, false
			}
		}
		switch field {
		case 4:
			st.ppid = int(v)
		case 5:
			st.pgrp = int(v)
		case 6:
			st.sid = int(v)
		case 22:
			st.start = v
		}
	}
	return st, true
}

// parseUint parses a decimal field of a /proc file.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// procPath is /proc/PID/name.
func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}

// readProc appends the contents of the /proc file at path to buf, growing
// it as needed. It costs three system calls (os.ReadFile adds a stat and
// the runtime poller's set-up), which counts when a listing reads a file
// of every process on the machine. oneRead: the file is made whole at its
// first read (a single_open seq_file such as stat), so a read that did not
// fill buf got all of it, and the read that would find the end is saved.
func readProc(path string, buf []byte, oneRead bool) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return buf, err
	}
	defer func() { _ = unix.Close(fd) }() // Read-only: nothing to lose.
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return buf, err
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if oneRead && len(buf) < cap(buf) {
			return buf, nil
		}
	}
}
