//go:build linux

package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkDetachedScan measures one scan of /proc for a session's
// processes (the process tree and the marker), which Close runs a few
// times: "all" reads every process's environment (a session as old as the
// machine), "new" only those started since now.
func BenchmarkDetachedScan(b *testing.B) {
	for _, bc := range []struct {
		name  string
		since uint64
	}{{"all", 0}, {"new", StartTime(os.Getpid())}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportMetric(float64(len(procPids())), "procs")
			for b.Loop() {
				d := Track(1<<30, bc.since, NewMarker())
				d.Release()
			}
		})
	}
}

// TestTrackTreeNeedsTheRoot: the process tree counts only while the
// root pid still names the session's child (same start time); a pid reused
// by another process does not lend its children to the session.
func TestTrackTreeNeedsTheRoot(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `sleep 30 & echo $!; wait`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	var sleepPid int
	if _, err := fmt.Fscan(out, &sleepPid); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) }()
	root := cmd.Process.Pid
	start := StartTime(root)

	d := Track(root, start, NewMarker())
	found := false
	for id := range d.procs {
		found = found || id.pid == sleepPid
	}
	d.Release()
	if !found {
		t.Fatalf("the root's child %d was not found", sleepPid)
	}

	// Without the child's start time the tree is not walked.
	d = Track(root, 0, NewMarker())
	n := len(d.procs)
	d.Release()
	if n != 0 {
		t.Fatalf("without the root's start time %d processes were taken from the tree", n)
	}
	// A pid that names a process started at another time is not the root.
	if !(&Detached{since: start}).isRoot(root) || (&Detached{since: start + 1}).isRoot(root) {
		t.Fatal("isRoot must compare the start time")
	}
}
