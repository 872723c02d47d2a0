//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"ptywright"
)

// attachCallTimeout bounds each call attach makes; the server answers
// them at once unless it is stuck.
const attachCallTimeout = 10 * time.Second

// attachTerminal shows t's session on the terminal of stdin and c.stdout
// until the detach key, the program's exit, a signal or the server's end,
// and restores the terminal on every one of them.
func attachTerminal(ctx context.Context, c *client, t attachTarget, stdin io.Reader) error {
	inTTY, ok := asTTY(stdin)
	outTTY, ok2 := asTTY(c.stdout)
	if !ok || !ok2 {
		return &exitError{code: exitUsage, err: errors.New("attach: stdin and stdout must be a terminal")}
	}
	fail := func(err error) error { return &exitError{code: exitUsage, err: fmt.Errorf("attach: %w", err)} }

	// Catch the signals first: from here on none of them can end attach
	// before the terminal is restored.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	// Notifications only mark the screen dirty: the painter fetches the
	// latest screen when it is free, so a slow terminal skips screens.
	var (
		changes atomic.Int64
		exited  atomic.Pointer[string]
		sid     atomic.Pointer[string]
	)
	dirty := make(chan struct{}, 1)
	mark := func() {
		select {
		case dirty <- struct{}{}:
		default:
		}
	}
	rc, err := dialAttach(ctx, c.socket, func(method string, params json.RawMessage) {
		var p struct {
			Session string                `json:"session"`
			Exit    *ptywright.ExitStatus `json:"exit"`
		}
		if json.Unmarshal(params, &p) != nil || sid.Load() == nil || p.Session != *sid.Load() {
			return
		}
		switch method {
		case "session.changed":
			changes.Add(1)
		case "session.exited":
			how := "exited"
			if p.Exit != nil && p.Exit.Signal != "" {
				how = "killed by signal " + p.Exit.Signal
			} else if p.Exit != nil {
				how = fmt.Sprintf("exited with code %d", p.Exit.Code)
			}
			exited.Store(&how)
		default:
			return
		}
		mark()
	})
	if err != nil {
		// The client's own message, which names the socket and the fix.
		if _, derr := c.do(ctx, "session.list", nil); derr != nil {
			return derr
		}
		return fail(err)
	}
	defer rc.close()
	callCtx := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, attachCallTimeout) }
	cctx, cancel := callCtx()
	info, err := resolveAttach(cctx, rc, t.id)
	cancel()
	if err != nil {
		return fail(err)
	}
	sid.Store(&info.Session)
	cctx, cancel = callCtx()
	_, err = rc.call(cctx, "server.set_notifications", map[string]any{"enabled": true, "sessions": []string{info.Session}})
	cancel()
	if err != nil {
		return fail(err)
	}
	if t.control {
		cctx, cancel = callCtx()
		_, err = rc.call(cctx, "session.control", map[string]any{"session": info.Session, "action": "take"})
		cancel()
		if err != nil {
			return fail(err)
		}
		defer func() {
			cctx, cancel := callCtx()
			defer cancel()
			_, _ = rc.call(cctx, "session.control", map[string]any{"session": info.Session, "action": "release"}) // Best effort: closing the connection releases it too.
		}()
	}

	restore, err := inTTY.makeRaw()
	if err != nil {
		return fail(fmt.Errorf("put the terminal in raw mode: %w", err))
	}
	defer func() { _ = restore() }() // Best effort: the terminal may be gone (SIGHUP).
	out := c.stdout
	_, _ = io.WriteString(out, enterAltScreen) // Best effort: a write error ends the paint loop below.
	defer func() { _, _ = io.WriteString(out, leaveAltScreen) }()

	// Keys: read in their own goroutine; with --control each read goes to
	// the session in order, up to the detach key.
	detached := make(chan struct{})
	inputErr := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := stdin.Read(buf)
			chunk := buf[:n]
			i := bytes.IndexByte(chunk, t.detach)
			if i >= 0 {
				chunk = chunk[:i]
			}
			if t.control && len(chunk) > 0 {
				cctx, cancel := callCtx()
				_, werr := rc.call(cctx, "session.input", map[string]any{"session": info.Session, "action": map[string]any{"type": "text", "value": string(chunk)}})
				cancel()
				if werr != nil && exited.Load() == nil {
					inputErr <- werr
					return
				}
			}
			if i >= 0 {
				close(detached)
				return
			}
			if err != nil {
				inputErr <- fmt.Errorf("reading the terminal: %w", err)
				return
			}
		}
	}()

	// The adapter's state for the status line: one call at a time, off
	// the paint loop (it queues behind the adapter's turns).
	var adapterState atomic.Pointer[string]
	var stateBusy atomic.Bool
	refreshState := func() {
		if info.Adapter == "" || !stateBusy.CompareAndSwap(false, true) {
			return
		}
		go func() {
			defer stateBusy.Store(false)
			cctx, cancel := callCtx()
			defer cancel()
			res, err := rc.call(cctx, "adapter.state", map[string]any{"adapter": info.Adapter})
			if err != nil {
				return
			}
			var st struct{ State struct{ State string } }
			if json.Unmarshal(res, &st) != nil {
				return
			}
			if old := adapterState.Swap(&st.State.State); old == nil || *old != st.State.State {
				mark()
			}
		}()
	}

	skipped := 0
	mark()
	for {
		select {
		case <-dirty:
		case <-winch:
		case <-detached:
			return nil
		case err := <-inputErr:
			return fail(err)
		case sig := <-sigs:
			return &exitError{code: exitFailure, err: fmt.Errorf("attach: detached by signal %v", sig)}
		case <-rc.done:
			_, err := rc.call(ctx, "session.list", nil)
			return fail(err)
		}
		if n := changes.Swap(0); n > 1 {
			skipped += int(n - 1)
		}
		cctx, cancel := callCtx()
		res, err := rc.call(cctx, "session.snapshot", map[string]any{"session": info.Session, "cell_format": "runs"})
		cancel()
		if err != nil {
			return fail(err)
		}
		var snap ptywright.ScreenSnapshot
		if err := json.Unmarshal(res, &snap); err != nil {
			return fail(fmt.Errorf("session.snapshot: malformed result: %w", err))
		}
		term, err := outTTY.size()
		if err != nil || term.Rows < 2 || term.Cols < 1 {
			term = snap.Size
			term.Rows++
		}
		var state, how string
		if p := adapterState.Load(); p != nil {
			state = *p
		}
		if p := exited.Load(); p != nil {
			how = *p
		}
		status := attachStatus(info, snap, state, t.control, detachLabel(t.detachName), skipped, how)
		if _, err := out.Write(frame(snap, term, status)); err != nil {
			return fail(fmt.Errorf("writing the terminal: %w", err))
		}
		refreshState()
	}
}

// detachLabel is the detach key as the status line says it: "Ctrl-]".
func detachLabel(name string) string {
	if k, err := parseDetachKey(name); err == nil {
		return "Ctrl-" + string(rune(k|0x40))
	}
	return name
}
