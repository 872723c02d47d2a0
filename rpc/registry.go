package rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
)

// registry is the server state every connection shares: the sessions (and,
// with the extension layer, the adapters), and the connections subscribed to
// their events. One watcher goroutine per session turns the session's
// changes into notifications; the registry owns and stops it.
type registry struct {
	log *slog.Logger
	// events is the bus the sessions publish their core session:* events
	// on (Session.PublishEvents); adapters' handles emit theirs there too.
	events *events.Bus

	mu       sync.Mutex
	closed   bool
	nextID   uint64
	sessions map[string]*entry

	subsMu sync.RWMutex
	subs   map[*notifier]struct{}

	watchers sync.WaitGroup

	// expire closes a session whose idle_timeout_ms passed (set by the
	// server; nil in tests of the registry alone).
	expire func(*entry)
}

// entry is one registered session.
type entry struct {
	id  string
	num uint64 // creation order, for sorting ids
	// adapter is the id of the adapter that owns the session, "" for one
	// made by session.create; the notification filter matches on it.
	adapter string
	sess    *ptywright.Session
	// leave gives back the session's slot of the server's capacity, once
	// its Close has returned.
	leave func()
	// own is who keeps it alive (ownership.go); touched (UnixNano) and
	// busy feed its idle expiry, whose timer idleMu guards.
	own       ownership
	touched   atomic.Int64
	busy      atomic.Int32
	idleMu    sync.Mutex
	idleTimer *time.Timer

	stop    chan struct{} // closed to stop the watcher
	done    chan struct{} // closed when the watcher has stopped
	removed atomic.Bool   // no longer in the registry

	// handle is the owning adapter's handle once it exists; life is the
	// last status its lifecycle callback reported, for the moment before.
	handle atomic.Pointer[ptywright.ExtensionHandle]
	// shell drives a session created with a preset (session.run); nil
	// for the others.
	shell atomic.Pointer[ptywright.Shell]
	life  atomic.Pointer[contract.LifecycleStatus]

	// control is the id of the connection through which a person has the
	// terminal (session.control), 0 when nobody has (control.go).
	control atomic.Uint64
}

// lifecycle returns the owning adapter's turn lifecycle, nil for a session
// made by session.create.
func (e *entry) lifecycle() *contract.LifecycleStatus {
	if h := e.handle.Load(); h != nil {
		return h.Lifecycle()
	}
	return e.life.Load()
}

func newRegistry(log *slog.Logger, events *events.Bus) *registry {
	return &registry{
		log:      log,
		events:   events,
		sessions: make(map[string]*entry),
		subs:     make(map[*notifier]struct{}),
	}
}

// add registers a started session under the next id ("s1", "s2", ...) and
// has it publish its core events on the server's bus (PublishEvents), so
// that every subscriber (the adapter's own plugin instance among them,
// bound to the bus before its session exists) hears session:created before
// any other event of the session (resized, exited). adapter is the owning adapter's
// id or ""; bind, when set, is called with the new entry before any event,
// to scope the adapter's instance to it (so what its session:created
// handler emits and logs names its session). The request that creates the
// session holds its notifications (under ctx) before the watcher can post
// any, so the session's first output follows the response that names it.
func (r *registry) add(ctx context.Context, sess *ptywright.Session, adapter string, leave func(), own ownership, bind func(*entry)) (*entry, error) {
	e, err := r.addLocked(sess, adapter, leave, own)
	if err != nil {
		return nil, err
	}
	if bind != nil {
		bind(e)
	}
	holdNotifications(ctx, e)
	// The session itself reports session:created (now), session:resized
	// and session:exited on the bus, in the order they happen.
	sess.PublishEvents(r.events, events.Scope{Session: e.id, Adapter: e.adapter})
	go r.watch(e) // Counted in r.watchers by addLocked, so close waits for it.
	if r.expire != nil {
		e.armIdle(r.expire)
	}
	return e, nil
}

// addLocked registers the entry; its watcher is counted but not started.
func (r *registry) addLocked(sess *ptywright.Session, adapter string, leave func(), own ownership) (*entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("%w: %w", ErrInternal, ErrServerClosed)
	}
	r.nextID++
	e := &entry{
		id:      "s" + strconv.FormatUint(r.nextID, 10),
		num:     r.nextID,
		adapter: adapter,
		sess:    sess,
		leave:   leave,
		own:     own,
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	r.sessions[e.id] = e
	r.watchers.Add(1)
	return e, nil
}

// get returns the session registered as id. An unknown (or closed) id is an
// invalid-params error, as the reference specifies.
func (r *registry) get(id string) (*entry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.sessions[id]
	if !ok {
		return nil, invalidParams("session", "unknown session %q", id)
	}
	e.touch()
	return e, nil
}

// list returns the registered sessions in creation order.
func (r *registry) list() []*entry {
	r.mu.Lock()
	out := make([]*entry, 0, len(r.sessions))
	for _, e := range r.sessions {
		out = append(out, e)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].num < out[j].num })
	return out
}

// remove unregisters id, closes its session (reaping the child) and stops
// its watcher once the exit has been published.
func (r *registry) remove(id string) error {
	r.mu.Lock()
	e, ok := r.sessions[id]
	if ok {
		delete(r.sessions, id)
	}
	r.mu.Unlock()
	if !ok {
		return invalidParams("session", "unknown session %q", id)
	}
	return r.shut(e)
}

// removeEntry is remove for an entry already in hand: when the registry no
// longer holds it (Close took it), it waits for that shutdown instead.
func (r *registry) removeEntry(e *entry) error {
	r.mu.Lock()
	held := r.sessions[e.id] == e
	if held {
		delete(r.sessions, e.id)
	}
	r.mu.Unlock()
	if !held {
		<-e.done
		return nil
	}
	return r.shut(e)
}

func (r *registry) shut(e *entry) error {
	e.removed.Store(true)
	e.disarmIdle()
	err := e.sess.Close()
	e.leave() // Its processes are reaped: the slot is free.
	close(e.stop)
	<-e.done
	if err != nil {
		return fmt.Errorf("close session %s: %w", e.id, err)
	}
	return nil
}

// closeAll closes every session at once (each Close may wait out a grace
// period) and refuses new ones.
func (r *registry) closeAll() error {
	r.mu.Lock()
	r.closed = true
	entries := make([]*entry, 0, len(r.sessions))
	for id, e := range r.sessions {
		entries = append(entries, e)
		delete(r.sessions, id)
	}
	r.mu.Unlock()
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Go(func() { errs[i] = r.shut(e) })
	}
	wg.Wait()
	r.watchers.Wait()
	return errors.Join(errs...)
}

// watch follows one session's changes without polling and publishes each to
// the subscribed connections; the exit is published exactly once.
func (r *registry) watch(e *entry) {
	defer r.watchers.Done()
	defer r.watched(e)
	exitPublished := false
	publish := func() {
		exited := isDone(e.sess.Exited())
		ev := evChanged
		if exited && !exitPublished {
			ev |= evExited
		}
		r.publish(e, ev)
		exitPublished = exitPublished || exited
	}
	// settle fires OutputHoldDelay after the last change while the child
	// runs: session.output holds back a tail that may begin a secret until
	// then (Session.OutputSince), so the tail is published once it settles.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	for {
		// Take the channel before publishing, so that a change made while
		// publishing closes it and is not missed.
		_, changed := e.sess.Changed()
		publish()
		select {
		case <-changed:
			if !isDone(e.sess.Exited()) {
				settle.Reset(ptywright.OutputHoldDelay)
			}
		case <-settle.C:
		case <-e.stop:
			// The session is closed: its last output and its exit may have
			// raced with stop.
			publish()
			return
		}
	}
}

// watched marks e's watcher stopped (done) and tells the subscribed
// connections, whose notifiers let a removed session go only after that
// (notifier.collect): a connection's writer that took the watcher's last
// events before done closed kept its delivery, and with it the session,
// for want of another event.
func (r *registry) watched(e *entry) {
	close(e.done)
	r.publish(e, evGone)
}

func (r *registry) publish(e *entry, ev event) {
	r.subsMu.RLock()
	defer r.subsMu.RUnlock()
	for n := range r.subs {
		n.post(e, ev)
	}
}

// publishLifecycle is an adapter's OnLifecycle callback: it never blocks.
func (r *registry) publishLifecycle(e *entry, st contract.LifecycleStatus) {
	e.life.Store(&st)
	r.publish(e, evLifecycle)
}

func (r *registry) subscribe(n *notifier) {
	r.subsMu.Lock()
	r.subs[n] = struct{}{}
	r.subsMu.Unlock()
}

func (r *registry) unsubscribe(n *notifier) {
	r.subsMu.Lock()
	delete(r.subs, n)
	r.subsMu.Unlock()
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
