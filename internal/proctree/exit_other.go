//go:build !linux

package proctree

import "errors"

// AwaitExit is Linux-only (waitid with WNOWAIT): elsewhere the caller
// reaps the child to learn that it exited, which frees its pid at once.
func AwaitExit(pid int) (uint32, error) { return 0, errors.ErrUnsupported }
