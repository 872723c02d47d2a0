//go:build unix && !linux && !darwin

package ptywright

// setIUTF8 does nothing where the flag is not known to this package: the
// erase of a multi-byte character in cooked mode removes its last byte.
func setIUTF8(uintptr) error { return nil }
