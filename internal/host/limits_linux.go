package host

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// rlimitNproc returns RLIMIT_NPROC and how many tasks (threads) the real
// user runs now, which count against it; ok false when it does not apply
// to this process (infinite, or root, whom the kernel exempts).
func rlimitNproc() (limit, used int64, ok bool) {
	limit, ok = rlimit(unix.RLIMIT_NPROC)
	uid := os.Getuid()
	if !ok || uid == 0 {
		return 0, 0, false
	}
	return limit, userTasks(uid), true
}

// userTasks counts the threads of uid's processes, from /proc.
func userTasks(uid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		tasks, err := os.ReadDir("/proc/" + e.Name() + "/task")
		if err != nil {
			continue
		}
		n += int64(len(tasks))
	}
	return n
}

// vmSize is this process's virtual size in bytes, from /proc/self/statm
// (a read of a few bytes); 0 when it cannot be read.
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	pages, err := strconv.ParseInt(string(bytes.Fields(b)[0]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// cgroupMemoryMax is the memory.max of this process's cgroup (v2), ok
// false when there is none or it is "max".
func cgroupMemoryMax() (int64, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		path, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		v, err := os.ReadFile("/sys/fs/cgroup" + path + "/memory.max")
		if err != nil {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		return n, err == nil && n > 0
	}
	return 0, false
}
