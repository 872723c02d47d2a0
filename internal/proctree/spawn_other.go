//go:build !linux

package proctree

import "syscall"

// StartTied runs start: outside Linux there is no parent-death signal
// (macOS has none), so a child outlives a process killed without a Close
// unless its terminal's hangup ends it. release does nothing.
func StartTied(attr *syscall.SysProcAttr, start func() error) (release func(), err error) {
	if err := start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
