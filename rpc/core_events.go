package rpc

import "ptywright"

// The registry emits the core session events (session:created,
// session:exited, session:resized) on the server's event bus; adapters'
// handles emit adapter:state_changed. Plugins handle them with
// ptywright.on, and subscribed clients receive them as adapter.event.

// emitCore emits a core event about e; fill adds the event's own fields.
func (r *registry) emitCore(e *entry, name string, fill func(*ptywright.CoreEvent)) {
	if r.events == nil {
		return
	}
	ce := ptywright.CoreEvent{Event: name, Session: e.id, Adapter: e.adapter, Sequence: e.sess.Sequence()}
	if fill != nil {
		fill(&ce)
	}
	// EmitCore fails only for a name that is not a core event.
	_ = r.events.EmitCore(ce)
}

// emitChanges is called by the watcher after each change: it emits
// session:resized when the size differs from last (and returns the new
// one), and session:exited once, when exited is set.
func (r *registry) emitChanges(e *entry, last ptywright.Size, exited bool) ptywright.Size {
	if size := e.sess.Size(); size != last {
		r.emitCore(e, ptywright.EventSessionResized, func(ce *ptywright.CoreEvent) { ce.Size = &size })
		last = size
	}
	if exited {
		r.emitCore(e, ptywright.EventSessionExited, func(ce *ptywright.CoreEvent) {
			if st, ok := e.sess.ExitStatus(); ok {
				ce.Exit = &st
			}
		})
	}
	return last
}
