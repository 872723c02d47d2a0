//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"syscall"

	"golang.org/x/sys/unix"

	"ptywright"
)

// tty is a terminal file descriptor reached through its RawConn, so that
// asking about it never switches an *os.File to blocking mode the way Fd
// does.
type tty struct {
	rc syscall.RawConn
}

// asTTY returns v as a terminal when it is a file open on one.
func asTTY(v any) (*tty, bool) {
	sc, ok := v.(syscall.Conn)
	if !ok {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	t := &tty{rc: rc}
	if _, err := t.termios(); err != nil {
		return nil, false
	}
	return t, true
}

func (t *tty) control(fn func(fd int) error) error {
	var ferr error
	if err := t.rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

func (t *tty) termios() (*unix.Termios, error) {
	var tio *unix.Termios
	err := t.control(func(fd int) (err error) {
		tio, err = unix.IoctlGetTermios(fd, ioctlGetTermios)
		return err
	})
	return tio, err
}

func (t *tty) setTermios(tio *unix.Termios) error {
	return t.control(func(fd int) error { return unix.IoctlSetTermios(fd, ioctlSetTermios, tio) })
}

// makeRaw puts the terminal in raw mode, as cfmakeraw does, and returns the
// function that restores the previous mode.
func (t *tty) makeRaw() (restore func() error, err error) {
	old, err := t.termios()
	if err != nil {
		return nil, err
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN] = 1
	raw.Cc[unix.VTIME] = 0
	if err := t.setTermios(&raw); err != nil {
		return nil, err
	}
	return func() error { return t.setTermios(old) }, nil
}

// size reads the terminal's size; zero fields mean the terminal does not
// know it.
func (t *tty) size() (ptywright.Size, error) {
	var ws *unix.Winsize
	err := t.control(func(fd int) (err error) {
		ws, err = unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
		return err
	})
	if err != nil {
		return ptywright.Size{}, err
	}
	return ptywright.Size{
		Rows:        int(ws.Row),
		Cols:        int(ws.Col),
		PixelWidth:  int(ws.Xpixel),
		PixelHeight: int(ws.Ypixel),
	}, nil
}
