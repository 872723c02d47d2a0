//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"ptywright"
)

// forwardedSignals are passed on to the child's process group the first
// time; a second one ends the child.
var forwardedSignals = map[os.Signal]ptywright.Signal{
	syscall.SIGINT:  ptywright.SignalInt,
	syscall.SIGTERM: ptywright.SignalTerm,
	syscall.SIGHUP:  ptywright.SignalHup,
	syscall.SIGQUIT: ptywright.SignalQuit,
}

// runPassthrough runs cfg's command on a PTY with stdout as its live output
// and stdin as its input, and returns its exit code.
func runPassthrough(ctx context.Context, cfg runConfig, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	inTTY, stdinIsTTY := asTTY(stdin)
	outTTY, stdoutIsTTY := asTTY(stdout)

	// Catch the signals first: from here on none of them can kill run
	// before the terminal is restored.
	sigs := make(chan os.Signal, len(forwardedSignals))
	for sig := range forwardedSignals {
		signal.Notify(sigs, sig)
	}
	defer signal.Stop(sigs)
	// With SIGPIPE caught, writing to a closed stdout pipe fails with EPIPE
	// instead of killing run, which then ends the child itself.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	// Resizes have their own channel: a burst of them (a window being
	// dragged) coalesces there instead of crowding out a signal to forward.
	var (
		sizer *sizeSync
		winch chan os.Signal // nil unless the size follows the terminal
	)
	size := ptywright.Size{Rows: cfg.Rows, Cols: cfg.Cols}
	if stdoutIsTTY && (cfg.Rows == 0 || cfg.Cols == 0) {
		sizer = &sizeSync{tty: outTTY, pin: size}
		size = sizer.current()
		winch = make(chan os.Signal, 1)
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
	}

	if stdinIsTTY {
		restore, err := inTTY.makeRaw()
		if err != nil {
			return exitFailure, fmt.Errorf("run: put stdin in raw mode: %w", err)
		}
		defer func() { _ = restore() }() // Best effort: the terminal may be gone (SIGHUP).
	}

	env := map[string]string{}
	if term := os.Getenv("TERM"); term != "" {
		env["TERM"] = term // The child draws on the real terminal.
	}
	out := newOutputTap(stdout)
	s, err := ptywright.Start(ptywright.Options{
		Program:    cfg.Program,
		Args:       cfg.Args,
		Size:       size,
		Env:        env,
		Output:     out,
		RecordPath: cfg.Record,
	})
	if errors.Is(err, ptywright.ErrFileExists) {
		// Said in the command line's words, not the wire field's.
		return exitFailure, fmt.Errorf("run: --record %q: the file exists; ptywright never overwrites a recording", cfg.Record)
	}
	if err != nil {
		return exitFailure, fmt.Errorf("run: %w", err)
	}
	defer s.Close() // Closed below; this covers a panic.
	if sizer != nil {
		sizer.start(s, size)
	}

	ctx, cancel := context.WithCancel(ctx)
	fwd := &inputForwarder{s: s, sendEOF: !stdinIsTTY, beforeSend: sizer.sync}
	if stdinIsTTY {
		fwd.filter = new(replyFilter)
	}
	fwdDone := make(chan struct{})
	go func() {
		defer close(fwdDone)
		_ = fwd.run(ctx, stdin) // Best effort: a child that stopped reading loses its input.
	}()
	stopInput := func() {
		cancel()
		<-fwdDone
	}
	defer stopInput()

	forwarded := false
loop:
	for {
		select {
		case <-s.Exited():
			break loop
		case <-winch:
			sizer.sync()
		case sig := <-sigs:
			if forwarded {
				break loop // Close below ends the child.
			}
			forwarded = true
			_ = s.Signal(forwardedSignals[sig]) // Best effort: the child may be gone already.
		case <-out.failed:
			stopInput()
			_ = s.Close() // Best effort: the output error is what gets reported.
			if errors.Is(out.err, syscall.EPIPE) {
				// Whoever read stdout is gone; exit as a process killed by
				// SIGPIPE would, silently.
				return 128 + int(syscall.SIGPIPE), nil
			}
			return exitFailure, fmt.Errorf("run: write output: %w", out.err)
		}
	}
	stopInput()
	if err := s.Close(); err != nil {
		return exitFailure, fmt.Errorf("run: %w", err)
	}
	st, _ := s.ExitStatus()
	return exitCode(st)
}

// exitCode maps the child's exit status to run's exit code the way shells
// do: the code itself, or 128+N for death by signal N.
func exitCode(st ptywright.ExitStatus) (int, error) {
	if st.Err != nil {
		return exitFailure, fmt.Errorf("run: wait for the child: %w", st.Err)
	}
	if st.Signal == "" {
		return st.Code, nil
	}
	if n, ok := signalNumber(st.Signal); ok {
		return 128 + n, nil
	}
	return exitFailure, fmt.Errorf("run: child killed by signal %q", st.Signal)
}

// signalNumber reverses ExitStatus.Signal, which is a portable name
// ("term") for the signals ptywright knows and syscall.Signal.String()
// ("segmentation fault") for the others.
func signalNumber(name string) (int, bool) {
	if sig, err := ptywright.ParseSignal(name); err == nil {
		for osSig, ps := range forwardedSignals {
			if ps == sig {
				return int(osSig.(syscall.Signal)), true
			}
		}
		switch sig {
		case ptywright.SignalKill:
			return int(syscall.SIGKILL), true
		case ptywright.SignalUsr1:
			return int(syscall.SIGUSR1), true
		case ptywright.SignalUsr2:
			return int(syscall.SIGUSR2), true
		}
	}
	for n := 1; n < 128; n++ {
		if syscall.Signal(n).String() == name {
			return n, true
		}
	}
	return 0, false
}

// sizeSync keeps the session's size equal to the real terminal's, except
// for the dimensions fixed by --rows/--cols.
type sizeSync struct {
	tty *tty
	pin ptywright.Size // non-zero fields are fixed

	mu  sync.Mutex
	s   *ptywright.Session
	cur ptywright.Size
}

// current returns the terminal's size with the fixed fields applied; zero
// fields (unknown) fall back to the session default.
func (z *sizeSync) current() ptywright.Size {
	size, err := z.tty.size()
	if err != nil {
		size = ptywright.Size{}
	}
	if z.pin.Rows > 0 {
		size.Rows = z.pin.Rows
	}
	if z.pin.Cols > 0 {
		size.Cols = z.pin.Cols
	}
	return size
}

func (z *sizeSync) start(s *ptywright.Session, size ptywright.Size) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.s, z.cur = s, size
}

// sync applies the terminal's current size if it changed. It runs on
// SIGWINCH and before each input write: the signal arrives asynchronously,
// so without the second call a key typed just after a resize could reach
// the child before the resize does.
func (z *sizeSync) sync() {
	if z == nil {
		return
	}
	size := z.current()
	if size.Rows == 0 || size.Cols == 0 {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.s == nil || size == z.cur {
		return
	}
	if err := z.s.Resize(size); err == nil {
		z.cur = size
	}
}

// outputTap is the session's Output: it writes to stdout and reports the
// first failure, after which it discards.
type outputTap struct {
	w      io.Writer
	once   sync.Once
	err    error         // set before failed is closed
	failed chan struct{} // closed on the first write error
}

func newOutputTap(w io.Writer) *outputTap {
	return &outputTap{w: w, failed: make(chan struct{})}
}

func (o *outputTap) Write(p []byte) (int, error) {
	select {
	case <-o.failed:
		return len(p), nil
	default:
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.once.Do(func() {
			o.err = err
			close(o.failed)
		})
	}
	return n, err
}
