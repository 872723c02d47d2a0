//go:build unix

package host

import "golang.org/x/sys/unix"

// rlimit returns the soft limit of resource, ok false when it is infinite
// or cannot be read.
func rlimit(resource int) (int64, bool) {
	var r unix.Rlimit
	if err := unix.Getrlimit(resource, &r); err != nil || r.Cur == unix.RLIM_INFINITY || r.Cur > 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}

func rlimitNofile() (int64, bool) { return rlimit(unix.RLIMIT_NOFILE) }

func rlimitAS() (int64, bool) { return rlimit(unix.RLIMIT_AS) }
