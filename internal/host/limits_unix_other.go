//go:build unix && !linux

package host

// rlimitNproc: not applied elsewhere, where counting a user's tasks has no
// cheap way; a fork refused for it is still ErrCapacity.
func rlimitNproc() (limit, used int64, ok bool) { return 0, 0, false }

// vmSize: no cheap way to read it here, so RLIMIT_AS is not watched.
func vmSize() int64 { return 0 }

func cgroupMemoryMax() (int64, bool) { return 0, false }
