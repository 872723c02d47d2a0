//go:build linux

package proctree

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AwaitExit blocks until the child pid has exited and says how it ended,
// as waitpid(2) reports it (a syscall.WaitStatus on Unix), without reaping it (waitid with WNOWAIT). The child stays a zombie, and
// the kernel keeps its pid allocated, as a pid and as the process group and
// session id it leads, until the parent reaps it (exec.Cmd.Wait). Until
// then a signal to the group, or a scan of /proc for the session, reaches
// the program's own processes only, never a stranger handed the pid again.
//
// It waits through the runtime's poller, on a pidfd (Linux 5.4), so that
// a thousand sessions waiting hold no OS thread each; where pidfds are
// not to be had it blocks its thread in waitid.
func AwaitExit(pid int) (uint32, error) {
	if info, err := awaitPidfd(pid); !errors.Is(err, errNoPidfd) {
		if err != nil {
			return 0, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		return exitStatus(pid, &info)
	}
	return awaitBlocking(pid)
}

// awaitBlocking waits for pid's exit in waitid, which holds the calling
// goroutine's OS thread until then.
func awaitBlocking(pid int) (uint32, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		return exitStatus(pid, &info)
	}
}

// errNoPidfd: the kernel, or a seccomp filter, offers no pidfd to wait on
// (pidfd_open before Linux 5.3, waitid's P_PIDFD before 5.4), or the
// poller cannot watch one.
var errNoPidfd = errors.New("no pidfd to wait on")

// awaitPidfd waits for pid's exit on a pidfd, which becomes readable when
// the process exits: the goroutine parks in the poller, and waitid (with
// WNOHANG, after the wake-up) only reads the status.
func awaitPidfd(pid int) (unix.Siginfo, error) {
	var info unix.Siginfo
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return info, errNoPidfd // ESRCH too: waitid says ECHILD, as it always has.
	}
	// Non-blocking, or os.NewFile leaves it out of the poller.
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd) // Best effort: unused.
		return info, errNoPidfd
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer func() { _ = f.Close() }() // Best effort: read-only, nothing to lose.
	conn, err := f.SyscallConn()
	if err != nil {
		return info, errNoPidfd
	}
	var waitErr error
	err = conn.Read(func(fd uintptr) bool {
		info = unix.Siginfo{}
		waitErr = unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		// A child still running leaves si_signo 0 (WNOHANG): wait for the
		// pidfd to become readable, then ask again.
		return waitErr != unix.EINTR && (waitErr != nil || info.Signo != 0)
	})
	switch {
	case err != nil: // The poller cannot watch this fd.
		return info, errNoPidfd
	case waitErr == unix.EINVAL: // No P_PIDFD (Linux 5.3).
		return info, errNoPidfd
	}
	return info, waitErr
}

// exitStatus decodes the siginfo waitid filled for pid's exit into a
// wait status.
func exitStatus(pid int, info *unix.Siginfo) (uint32, error) {
	// si_status follows si_pid and si_uid in the union after the three
	// int fields, which is aligned like a pointer.
	off := (12 + ptrSize - 1) &^ (ptrSize - 1)
	status := *(*uint32)(unsafe.Add(unsafe.Pointer(info), off+8))
	switch info.Code {
	case cldExited:
		return status & 0xff << 8, nil
	case cldKilled:
		return status & 0x7f, nil
	case cldDumped:
		return status&0x7f | 0x80, nil
	}
	return 0, fmt.Errorf("wait for pid %d: unexpected si_code %d", pid, info.Code)
}

const ptrSize = unsafe.Sizeof(uintptr(0))

// The si_code of SIGCHLD for an exit (see waitid(2)).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)
