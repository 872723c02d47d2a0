//go:build linux

package ptywrighttest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ptywright"
)

// survivors lists the live processes (zombies aside) whose process group or
// session is pid, or whose environment carries marker (when not ""),
// waiting up to grace for them to go.
func survivors(pid int, marker string, grace time.Duration) []string {
	deadline := time.Now().Add(grace)
	for {
		left := scanProc(pid, marker)
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

func killSurvivors(pid int, marker string) {
	for _, p := range scanProc(pid, marker) {
		_ = syscall.Kill(p.pid, syscall.SIGKILL) // Best effort: it may be gone already.
	}
}

type procInfo struct {
	pid  int
	comm string
}

// scanProc reads /proc/PID/stat of every process: "pid (comm) state ppid
// pgrp session ...", comm being able to hold spaces and parentheses; and
// with a marker, /proc/PID/environ of those outside the group and session.
func scanProc(pid int, marker string) []procInfo {
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
		p, _ := strconv.Atoi(string(bytes.TrimSpace(b[:lp])))
		if state == 'Z' || state == 'X' || (pgrp != pid && sid != pid && !hasMarker(p, marker)) {
			continue
		}
		if p == pid {
			// The child itself was reaped by Close: a process with its pid
			// is a newcomer that reused it (and leads a session of its own).
			continue
		}
		out = append(out, procInfo{pid: p, comm: string(b[lp+1 : rp])})
	}
	return out
}

// hasMarker reports whether the environment of process p lists marker in
// ptywright.SessionMarkerEnv.
func hasMarker(p int, marker string) bool {
	if marker == "" || p == os.Getpid() {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/environ")
	if err != nil {
		return false
	}
	prefix := []byte(ptywright.SessionMarkerEnv + "=")
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return slices.Contains(strings.Split(string(v), ":"), marker)
		}
	}
	return false
}
