//go:build !unix

package host

func rlimitNofile() (int64, bool)               { return 0, false }
func rlimitAS() (int64, bool)                   { return 0, false }
func rlimitNproc() (limit, used int64, ok bool) { return 0, 0, false }
func vmSize() int64                             { return 0 }
func cgroupMemoryMax() (int64, bool)            { return 0, false }
