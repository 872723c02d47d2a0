package rpc

import (
	"context"
	"sync"
)

// Ordering. The reference says: "For a request, the direct response is
// written first, followed by any queued notifications." Requests run
// concurrently, and a session's watcher posts an event the moment the child
// reacts, so without help the writer, idle while a handler is still
// running, would send the session.output that a session.input provoked, or
// the session.exited of a session.close, before the response.
//
// What "caused" means here, concretely: a request causes notifications
// about a session X when it acts on X (types into it, resizes, kills or
// closes it, sends an adapter intent to it, closes or resumes its adapter)
// or creates X (session.create, adapter.start, adapter.resume). Before it
// acts, the handler takes a hold on X for its connection
// (holdNotifications). While a hold on X is open, that connection's
// notifications about X (session.changed, session.output, session.exited,
// adapter.lifecycle, and the adapter.event events scoped to X) stay
// pending, coalescing as usual. The writer releases the request's holds
// right after it wrote the response, so they follow it. A notification
// built from state read before the hold was taken was not caused by the
// request and may go first; one being built while a hold is taken is put
// back (notifier.collect checks the holds again under its lock).
//
// Nothing else is held: other connections, other sessions on this
// connection, and every session while only reads or waits are pending. A
// child printing on its own while a session.wait or adapter.wait is pending
// streams as it prints. adapter.turn takes no hold either: it is a send and
// a wait, the wait may last minutes, and the turn's output must stream while
// it waits, as a wait's does; its notifications may precede its response.
// A hold is taken before a handler waits for an adapter's lock, so an
// adapter.send queued behind another connection's adapter.turn holds its
// own connection's notifications about that session until it has run.

// holdsKey is the context key of a request's *holds.
type holdsKey struct{}

// holds are the holds one request (or every request of one batch) took on
// its connection's notifier. Batch members run concurrently, hence the
// lock.
type holds struct {
	n   *notifier
	mu  sync.Mutex
	ids []string
}

// withHolds returns the context a request's handler runs under, and the
// holds it will record.
func withHolds(ctx context.Context, n *notifier) (context.Context, *holds) {
	h := &holds{n: n}
	return context.WithValue(ctx, holdsKey{}, h), h
}

// holdNotifications holds the calling connection's notifications about e
// until the response of the request running under ctx has been written.
// Outside a request (no holds in ctx) it does nothing.
func holdNotifications(ctx context.Context, e *entry) {
	h, _ := ctx.Value(holdsKey{}).(*holds)
	if h == nil || e == nil {
		return
	}
	h.n.hold(e.id)
	h.mu.Lock()
	h.ids = append(h.ids, e.id)
	h.mu.Unlock()
}

// release releases every hold taken; the writer calls it once the
// response is written (or at once for a request that gets none).
func (h *holds) release() {
	h.mu.Lock()
	ids := h.ids
	h.ids = nil
	h.mu.Unlock()
	for _, id := range ids {
		h.n.release(id)
	}
}

// hold opens a hold on session id.
func (n *notifier) hold(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.holds[id]++
}

// release closes a hold on session id and wakes the writer for what it
// kept back.
func (n *notifier) release(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.holds[id] <= 1 {
		delete(n.holds, id)
	} else {
		n.holds[id]--
	}
	select {
	case n.ready <- struct{}{}:
	default:
	}
}

// heldLocked reports whether session id's notifications are held. n.mu
// must be held.
func (n *notifier) heldLocked(id string) bool {
	return id != "" && n.holds[id] > 0
}
