package tuitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BuildDaemonize builds testdata/daemonize, the program that double-forks
// a daemon out of its session and process group and prints
// "DAEMON=<pid> PGID=<pgid> SID=<sid>", and returns its path.
func BuildDaemonize(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "daemonize")
	if b, err := exec.Command("go", "build", "-o", out, "ptywright/testdata/daemonize").CombinedOutput(); err != nil {
		tb.Fatalf("go build ptywright/testdata/daemonize: %v: %s", err, b)
	}
	return out
}

// Daemon is a process a test started, identified by pid and start time so
// that a reused pid is not mistaken for it.
type Daemon struct {
	Pid, Pgid, Sid int
	Start          string // field 22 of /proc/PID/stat
}

var daemonLine = regexp.MustCompile(`DAEMON=(\d+) PGID=(\d+) SID=(\d+)`)

// ParseDaemon reads daemonize's DAEMON= line from text and pins the
// daemon it names, which must be running.
func ParseDaemon(tb testing.TB, text string) Daemon {
	tb.Helper()
	m := daemonLine.FindStringSubmatch(text)
	if m == nil {
		tb.Fatalf("no DAEMON= line in %q", text)
	}
	var d Daemon
	d.Pid, _ = strconv.Atoi(m[1])
	d.Pgid, _ = strconv.Atoi(m[2])
	d.Sid, _ = strconv.Atoi(m[3])
	st, ok := ProcStatFields(d.Pid)
	if !ok {
		tb.Fatalf("daemon %d is not running", d.Pid)
	}
	d.Start = st[19]
	return d
}

// ProcStatFields returns the fields of /proc/PID/stat after the command
// name: [0] is the state, [19] the start time.
func ProcStatFields(pid int) ([]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return f, len(f) >= 20
}

// Running reports whether the daemon still runs: a zombie does not.
func (d Daemon) Running() bool {
	f, ok := ProcStatFields(d.Pid)
	return ok && f[19] == d.Start && f[0] != "Z" && f[0] != "X"
}

// Kill ends a daemon the test owns and waits until it no longer runs.
func (d Daemon) Kill(tb testing.TB) {
	tb.Helper()
	if !d.Running() {
		return
	}
	if err := syscall.Kill(d.Pid, syscall.SIGKILL); err != nil {
		tb.Fatalf("kill daemon %d: %v", d.Pid, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for d.Running() {
		if time.Now().After(deadline) {
			tb.Fatalf("daemon %d survived SIGKILL", d.Pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
