//go:build unix && !linux && !darwin

package ptywright

import "golang.org/x/sys/unix"

// setIUTF8 does nothing where the flag is not known to this package: the
// erase of a multi-byte character in cooked mode removes its last byte.
func setIUTF8(uintptr) error { return nil }

// getTermios: not known to this package here, so an interrupt is always
// written as ^C.
func getTermios(uintptr) (*unix.Termios, error) { return nil, ErrUnsupported }
