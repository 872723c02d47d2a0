package ptywright

import "golang.org/x/sys/unix"

// setIUTF8 turns on the PTY's IUTF8 input flag, as tmux and xterm do, so
// that the line discipline's erase (Backspace in cooked mode) removes a
// whole UTF-8 character rather than its last byte.
func setIUTF8(fd uintptr) error {
	return updateTermios(fd, func(t *unix.Termios) { t.Iflag |= unix.IUTF8 })
}

// getTermios reads the terminal's attributes (through the master, as the
// slave's line discipline holds them).
func getTermios(fd uintptr) (*unix.Termios, error) {
	return unix.IoctlGetTermios(int(fd), unix.TCGETS)
}

func updateTermios(fd uintptr, change func(*unix.Termios)) error {
	t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	if err != nil {
		return err
	}
	change(t)
	return unix.IoctlSetTermios(int(fd), unix.TCSETS, t)
}
