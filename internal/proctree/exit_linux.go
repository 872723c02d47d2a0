//go:build linux

package proctree

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AwaitExit blocks until the child pid has exited and says how it ended,
// as waitpid(2) reports it (a syscall.WaitStatus on Unix), without reaping it (waitid with WNOWAIT). The child stays a zombie, and
// the kernel keeps its pid allocated, as a pid and as the process group and
// session id it leads, until the parent reaps it (exec.Cmd.Wait). Until
// then a signal to the group, or a scan of /proc for the session, reaches
// the program's own processes only, never a stranger handed the pid again.
func AwaitExit(pid int) (uint32, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait for pid %d: %w", pid, err)
		}
		break
	}
	// si_status follows si_pid and si_uid in the union after the three
	// int fields, which is aligned like a pointer.
	off := (12 + ptrSize - 1) &^ (ptrSize - 1)
	status := *(*uint32)(unsafe.Add(unsafe.Pointer(&info), off+8))
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
