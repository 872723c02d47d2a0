//go:build unix

package ptywright

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	gopty "github.com/aymanbagabas/go-pty"
	"golang.org/x/sys/unix"

	"ptywright/internal/launch"
	"ptywright/internal/proctree"
	"ptywright/internal/ptyio"
)

// process is the platform half of a Session: the child and the PTY master.
type process struct {
	cmd    *gopty.Cmd
	master *os.File         // non-blocking dup of the master, owned by the reader
	leader *proctree.Leader // signals by the pid, safe from its reuse
}

// startProcess spawns the program on a new PTY. The child becomes a session
// leader with the PTY as its controlling terminal, so its process group id is
// its pid.
func startProcess(program string, args []string, dir string, env []string, size Size) (_ *process, err error) {
	pt, err := gopty.New()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	upt, ok := pt.(gopty.UnixPty)
	if !ok {
		_ = pt.Close() // Best effort: we are already failing.
		return nil, ErrUnsupported
	}
	// go-pty keeps both ends open in the parent. Whatever happens below, the
	// parent must not keep the slave: the reader would never see EOF.
	defer func() { _ = pt.Close() }() // Best effort: the dup below is what we keep.

	if err := upt.SetWinsize(winsize(size)); err != nil {
		return nil, fmt.Errorf("set pty size: %w", err)
	}
	if err := setIUTF8(upt.Slave().Fd()); err != nil {
		return nil, fmt.Errorf("set pty IUTF8: %w", err)
	}
	path, err := launch.Resolve(program, dir)
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", program, err)
	}
	cmd := pt.Command(path, args...)
	cmd.Args[0] = program
	cmd.Dir = dir
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	release, err := proctree.StartTied(cmd.SysProcAttr, cmd.Start) // Dies with us, on Linux.
	if err != nil {
		return nil, fmt.Errorf("start %q: %w", program, err)
	}
	// Non-blocking, so that Close can interrupt the reader (see there).
	master, err := ptyio.NonblockingDup(upt.Master())
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Best effort: undo the spawn.
		_ = cmd.Wait()
		release()
		return nil, err
	}
	reap := func() (*os.ProcessState, error) {
		err := cmd.Wait()
		release()
		return cmd.ProcessState, err
	}
	return &process{cmd: cmd, master: master, leader: proctree.NewLeader(cmd.Process.Pid, reap)}, nil
}

func winsize(s Size) *gopty.Winsize {
	return &gopty.Winsize{
		Row:    uint16(s.Rows),
		Col:    uint16(s.Cols),
		Xpixel: uint16(s.PixelWidth),
		Ypixel: uint16(s.PixelHeight),
	}
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// wait returns once the child exited (see proctree.Leader.Wait).
func (p *process) wait() ExitStatus {
	st, err := p.leader.Wait()
	switch {
	case err != nil:
		return ExitStatus{Code: -1, Err: err}
	case st.Signaled():
		return ExitStatus{Code: -1, Signal: signalName(st.Signal())}
	}
	return ExitStatus{Code: st.ExitStatus()}
}

// reap reaps the child once it exited (Close): its pid may be reused after.
func (p *process) reap() { _, _ = p.leader.Reap() } // The status was read at the exit.

// signalGroup delivers sig to the child's whole process group; ended
// (Close) also signals what is left of it after the child exited. Neither
// signals once the pid may name a stranger: ErrProcessExited.
func (p *process) signalGroup(sig Signal, ended bool) error {
	s, ok := unixSignals[sig]
	if !ok {
		return fmt.Errorf("signal %q: %w", sig, ErrUnsupported)
	}
	err := p.leader.SignalGroup(s, ended)
	if errors.Is(err, proctree.ErrExited) {
		return ErrProcessExited
	}
	return err
}

func (p *process) setSize(s Size) error {
	conn, err := p.master.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	if err := conn.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, winsize(s))
	}); err != nil {
		return err
	}
	return ioErr
}

var unixSignals = map[Signal]syscall.Signal{
	SignalInt:  syscall.SIGINT,
	SignalTerm: syscall.SIGTERM,
	SignalHup:  syscall.SIGHUP,
	SignalQuit: syscall.SIGQUIT,
	SignalKill: syscall.SIGKILL,
	SignalUsr1: syscall.SIGUSR1,
	SignalUsr2: syscall.SIGUSR2,
}

func signalName(s syscall.Signal) string {
	for name, sig := range unixSignals {
		if sig == s {
			return string(name)
		}
	}
	return s.String()
}

// outOfResources tells a start that failed for want of a host resource
// (ErrCapacity) from one that was wrong: fork's EAGAIN is RLIMIT_NPROC or
// the kernel's thread limit, EMFILE and ENFILE are file descriptors,
// ENOSPC from /dev/ptmx is kernel.pty.max, ENOMEM is memory.
func outOfResources(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EAGAIN, syscall.EMFILE, syscall.ENFILE, syscall.ENOSPC, syscall.ENOMEM} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// writeInput writes b to the master, adding to *n what went in, until all
// of it has, the write fails, or the master's write deadline passes (then
// the error is os.ErrDeadlineExceeded and *n says how much the program
// got). Counting each write(2) is what os.File.Write cannot do: a
// deadline there loses how much of b was written.
func (p *process) writeInput(b []byte, n *int) error {
	conn, err := p.master.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = conn.Write(func(fd uintptr) bool {
		for *n < len(b) {
			k, err := unix.Write(int(fd), b[*n:])
			if k > 0 {
				*n += k
			}
			switch {
			case err == unix.EAGAIN:
				return false // Wait until the program reads, or the deadline.
			case err == unix.EINTR:
			case err != nil:
				werr = err
				return true
			}
		}
		return true
	})
	if werr != nil {
		return werr
	}
	return err
}

// interruptBySignal does what the line discipline does with a ^C when
// ISIG is set and VINTR is ^C: SIGINT to the terminal's foreground process
// group. It reports false, doing nothing, when the terminal would not turn
// ^C into a signal (raw mode, another VINTR).
func (p *process) interruptBySignal() (bool, error) {
	conn, err := p.master.SyscallConn()
	if err != nil {
		return false, err
	}
	var pgrp int
	var ioErr error
	signals := false
	if err := conn.Control(func(fd uintptr) {
		t, err := getTermios(fd)
		if err != nil {
			ioErr = err
			return
		}
		if t.Lflag&unix.ISIG == 0 || t.Cc[unix.VINTR] != 0x03 {
			return
		}
		signals = true
		pgrp, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP)
	}); err != nil {
		return false, err
	}
	if ioErr != nil || !signals {
		return false, ioErr
	}
	if pgrp <= 0 {
		return false, nil
	}
	return true, unix.Kill(-pgrp, unix.SIGINT)
}
