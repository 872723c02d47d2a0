package ptywright

import "golang.org/x/sys/unix"

// setIUTF8 turns on the PTY's IUTF8 input flag, as tmux and xterm do, so
// that the line discipline's erase (Backspace in cooked mode) removes a
// whole UTF-8 character rather than its last byte.
func setIUTF8(fd uintptr) error {
	t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag |= unix.IUTF8
	return unix.IoctlSetTermios(int(fd), unix.TCSETS, t)
}
