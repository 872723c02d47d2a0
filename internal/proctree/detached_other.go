//go:build !linux

package proctree

import "time"

// Detached finds nothing outside Linux: reading another process's
// environment or the process table needs /proc. There Close ends the
// process group and nothing else, so a daemon that left it survives (on
// macOS; on Windows Start is unsupported).
type Detached struct{}

// Track finds nothing outside Linux.
func Track(root int, since uint64, marker string) *Detached { return nil }

// StartTime is unknown (0) outside Linux.
func StartTime(pid int) uint64 { return 0 }

// SessionEmpty is unknown (false) outside Linux.
func (d *Detached) SessionEmpty() bool { return false }

// End does nothing outside Linux.
func (d *Detached) End(grace time.Duration) {}

// Release does nothing outside Linux.
func (d *Detached) Release() {}
