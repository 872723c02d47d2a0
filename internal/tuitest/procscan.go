package tuitest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcessesOf lists the running processes (zombies aside) that involve dir:
// in their command line, working directory, executable or environment. A
// run that keeps its HOME and CODEX_HOME in a directory of its own finds
// every process it started this way, wherever it moved in the process
// tree. ok is false where there is no /proc to read.
func ProcessesOf(dir string) (procs []string, ok bool) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return nil, false
	}
	needle := []byte(dir)
	self := os.Getpid()
	paths, _ := filepath.Glob("/proc/[0-9]*") // Best effort: a process may vanish meanwhile.
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(p + "/stat")
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		cmdline, _ := os.ReadFile(p + "/cmdline")
		environ, _ := os.ReadFile(p + "/environ")
		cwd, _ := os.Readlink(p + "/cwd")
		exe, _ := os.Readlink(p + "/exe")
		if bytes.Contains(cmdline, needle) || bytes.Contains(environ, needle) ||
			strings.HasPrefix(cwd, dir) || strings.HasPrefix(exe, dir) {
			procs = append(procs, fmt.Sprintf("pid %d: %s", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
		}
	}
	return procs, true
}

// KillProcessesOf kills what ProcessesOf finds, so that a failed test does
// not leave them running.
func KillProcessesOf(dir string) {
	procs, _ := ProcessesOf(dir)
	for _, p := range procs {
		var pid int
		if _, err := fmt.Sscanf(p, "pid %d:", &pid); err == nil {
			if proc, err := os.FindProcess(pid); err == nil {
				_ = proc.Kill() // Best effort: it may be gone.
			}
		}
	}
}
