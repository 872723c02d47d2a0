//go:build linux

package ptywrighttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// survivors lists the live processes (zombies aside) whose process group or
// session is pid, waiting up to grace for them to go.
func survivors(pid int, grace time.Duration) []string {
	deadline := time.Now().Add(grace)
	for {
		left := scanProc(pid)
		if len(left) == 0 || time.Now().After(deadline) {
			out := make([]string, len(left))
			for i, p := range left {
				out[i] = fmt.Sprintf("pid %d (%s)", p.pid, p.comm)
			}
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func killSurvivors(pid int) {
	for _, p := range scanProc(pid) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL) // Best effort: it may be gone already.
	}
}

type procInfo struct {
	pid  int
	comm string
}

// scanProc reads /proc/PID/stat of every process: "pid (comm) state ppid
// pgrp session ...", comm being able to hold spaces and parentheses.
func scanProc(pid int) []procInfo {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat") // Best effort: a process may vanish meanwhile.
	var out []procInfo
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		lp, rp := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if lp < 0 || rp < lp {
			continue
		}
		f := bytes.Fields(b[rp+1:])
		if len(f) < 4 {
			continue
		}
		state := f[0][0]
		pgrp, _ := strconv.Atoi(string(f[2]))
		sid, _ := strconv.Atoi(string(f[3]))
		if state == 'Z' || state == 'X' || (pgrp != pid && sid != pid) {
			continue
		}
		p, _ := strconv.Atoi(string(bytes.TrimSpace(b[:lp])))
		if p == pid {
			// The child itself was reaped by Close: a process with its pid
			// is a newcomer that reused it (and leads a session of its own).
			continue
		}
		out = append(out, procInfo{pid: p, comm: string(b[lp+1 : rp])})
	}
	return out
}
