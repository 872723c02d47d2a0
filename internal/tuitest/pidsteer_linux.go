//go:build linux

package tuitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// ClaimPid starts `sleep 60` as the leader of its own process group and
// asks the kernel to give it pid want, through
// /proc/sys/kernel/ns_last_pid (root in the pid namespace: the test fails
// under CI=true without it, and is skipped elsewhere). It tries a few
// times, since other processes on the machine fork too, and reports
// whether it got want: it cannot while a process, zombies included, still
// holds that pid as its pid, process group or session id. The bystander
// runs until End or the test's end. Tests use it to check that a session
// never signals a pid it no longer owns.
func ClaimPid(t testing.TB, want int) (by *exec.Cmd, got bool) {
	t.Helper()
	const nsLastPid = "/proc/sys/kernel/ns_last_pid"
	// Test binaries of other packages steer the allocator at the same
	// time: each write and the fork it steers are one step under a lock.
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "ptywright-ns_last_pid.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatalf("open the pid steering lock: %v", err)
	}
	defer func() { _ = lock.Close() }() // Releases the lock too.
	for try := 0; try < 100; try++ {
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatalf("lock pid steering: %v", err)
		}
		if err := os.WriteFile(nsLastPid, []byte(strconv.Itoa(want-1)), 0); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("cannot steer pid allocation (%v): CI runs the pid reuse tests as root", err)
			}
			t.Skipf("cannot steer pid allocation (%v): this test needs root in its pid namespace", err)
		}
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err := cmd.Start()
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) // Best effort: Close releases it anyway.
		if err != nil {
			t.Fatalf("start a bystander: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill() // Best effort: End may have reaped it.
			_ = cmd.Wait()
		})
		if by != nil {
			_ = by.Process.Kill() // The previous try's: not wanted.
			_ = by.Wait()
		}
		by = cmd
		if cmd.Process.Pid == want {
			return by, true
		}
	}
	return by, false
}

// End asks a bystander of ClaimPid to stop with SIGTERM and says how it
// ended: "terminated" means it was still alive; "killed" means something
// sent it SIGKILL before (a pending SIGKILL wins over the later SIGTERM).
func End(by *exec.Cmd) string {
	_ = syscall.Kill(by.Process.Pid, syscall.SIGTERM) // Best effort: it may be dead already.
	_ = by.Wait()
	ws := by.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL:
		return "killed"
	case ws.Signaled() && ws.Signal() == syscall.SIGTERM:
		return "terminated"
	}
	return by.ProcessState.String()
}
