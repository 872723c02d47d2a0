package ptywright

import (
	"context"

	"ptywright/events"
)

// handleSDK is an ExtensionHandle's part of the runtime SDK: it reports
// state changes as adapter:state_changed and runs the extension's cleanups
// when the session's program exits. Its fields are guarded by the
// handle's extMu, except stop and done.
type handleSDK struct {
	lastState string
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the exit watcher has stopped
}

// startSDK binds the extension to the handle's bus and scope and, for an
// extension with cleanups, starts the goroutine that runs them when the
// program exits; Close stops it.
func (h *ExtensionHandle) startSDK() {
	if b, ok := h.ext.(events.Binder); ok && (h.opts.Events != nil || h.opts.Scope != (events.Scope{})) {
		b.BindEvents(h.opts.Events, h.opts.Scope)
	}
	c, ok := h.ext.(Cleaner)
	if !ok {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	h.sdk.stop, h.sdk.done = stop, done
	go func() {
		defer close(done)
		select {
		case <-h.s.Exited():
			// Not under extMu: a classification need not wait for the
			// plugin's cleanups (the extension serialises its own calls),
			// and each cleanup runs under the plugin's call budget, so
			// Close, which waits for them, is not held for longer. They
			// are not cancelled: every registered cleanup runs. Failures
			// are logged by the extension; the session is over either way.
			_ = c.RunCleanups(context.Background())
		case <-stop:
		}
	}()
}

// stopSDK stops the exit watcher; Close then closes the extension, which
// runs whatever cleanups are still pending.
func (h *ExtensionHandle) stopSDK() {
	if h.sdk.stop == nil {
		return
	}
	close(h.sdk.stop)
	<-h.sdk.done
}

// noteStateLocked records st and, when its state differs from the last
// one, emits adapter:state_changed. The caller holds extMu, so changes are
// emitted in the order they were classified (bus subscribers never block).
func (h *ExtensionHandle) noteStateLocked(st StateSnapshot) {
	if st.State == h.sdk.lastState {
		return
	}
	prev := h.sdk.lastState
	h.sdk.lastState = st.State
	if h.opts.Events == nil {
		return
	}
	// emitCore fails only for a name that is not a core event.
	_ = emitCore(h.opts.Events, CoreEvent{
		Event:         events.AdapterStateChanged,
		Session:       h.opts.Scope.Session,
		Adapter:       h.opts.Scope.Adapter,
		Sequence:      st.Sequence,
		State:         st.State,
		PreviousState: prev,
	})
}

// Cleaner is implemented by extensions with cleanups to run when their
// session's program exits, before Close (a Lua extension does).
// ExtensionHandle calls RunCleanups on a goroutine of its own, possibly
// while it calls the extension's other methods: an extension that is not
// safe for that serialises its calls itself.
type Cleaner interface {
	RunCleanups(ctx context.Context) error
}
