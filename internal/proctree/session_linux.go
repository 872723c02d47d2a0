//go:build linux

package proctree

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// KillSession sends SIGKILL to every process of the terminal session
// the child leads: background jobs a job-control shell moved to process
// groups of their own survive the group kill but not this. A process that
// leaves the session (setsid) is out of its reach: see Detached.
func KillSession(sid int) {
	for _, pid := range procPids() {
		if pid == sid {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.sid == sid {
			_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: it may be gone.
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
func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name (field 2) may hold spaces and parentheses: skip
	// past its last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	var errs [4]error
	st.ppid, errs[0] = strconv.Atoi(f[1])
	st.pgrp, errs[1] = strconv.Atoi(f[2])
	st.sid, errs[2] = strconv.Atoi(f[3])
	st.start, errs[3] = strconv.ParseUint(f[19], 10, 64)
	for _, err := range errs {
		if err != nil {
			return procStat{}, false
		}
	}
	return st, true
}
