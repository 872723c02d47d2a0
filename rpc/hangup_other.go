//go:build !unix

package rpc

import "syscall"

// fdHangup cannot poll a descriptor here: the peer is taken to be there
// until a write fails.
func fdHangup(syscall.Conn) func() bool { return nil }
