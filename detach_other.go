//go:build !linux

package ptywright

import "time"

// detached finds nothing outside Linux: reading another process's
// environment or the process table needs /proc. There Close ends the
// process group and nothing else, so a daemon that left it survives (on
// macOS as before this was added; on Windows Start is unsupported).
type detached struct{}

func trackDetached(root int, since uint64, marker string) *detached { return nil }

func processStart(pid int) uint64 { return 0 }

func (d *detached) end(grace time.Duration) {}

func (d *detached) release() {}
