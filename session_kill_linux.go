//go:build linux

package ptywright

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// killSessionMembers sends SIGKILL to every process of the terminal session
// the child leads: background jobs a job-control shell moved to process
// groups of their own survive the group kill but not this. Best effort: a
// process can leave the session (setsid) and is then out of reach.
func killSessionMembers(sid int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == sid {
			continue
		}
		if procSession(pid) == sid {
			_ = syscall.Kill(pid, syscall.SIGKILL) // Best effort: it may be gone.
		}
	}
}

// procSession reads the session id (field 6) from /proc/PID/stat.
func procSession(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name (field 2) may hold spaces: skip past its ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return -1
	}
	sid, err := strconv.Atoi(f[3])
	if err != nil {
		return -1
	}
	return sid
}
