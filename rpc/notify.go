package rpc

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"

	"ptywright"
	"ptywright/contract"
)

// The notifications a subscribed connection receives.
const (
	notifyChanged   = "session.changed"
	notifyOutput    = "session.output"
	notifyExited    = "session.exited"
	notifyLifecycle = "adapter.lifecycle"
)

// event is what a watcher posts about a session.
type event uint8

const (
	// evChanged: the screen or the transcript may have moved.
	evChanged event = 1 << iota
	// evExited: the child exited.
	evExited
	// evLifecycle: the owning adapter's turn lifecycle changed.
	evLifecycle
	// evGone: the session was removed and its watcher has stopped; no
	// event follows. A connection that follows it forgets it once it has
	// sent what is left (collect).
	evGone
)

// notifier is one connection's subscription: whether it is on, its filter,
// and per session what it has been told so far.
//
// Watchers only set flags (post never blocks); the connection's writer turns
// them into notifications when it is free (collect). While the writer is
// busy, events for a session coalesce into one pending state: the latest
// sequence, and output read straight from the session's bounded transcript
// from this connection's cursor. A slow client therefore costs O(sessions)
// memory and never holds up a session or another client.
type notifier struct {
	log   *slog.Logger
	reg   *registry     // the server's sessions, for an event's screen width
	ready chan struct{} // capacity 1: wakes the writer

	mu      sync.Mutex
	enabled bool
	filter  filter
	subs    map[*entry]*delivery
	dirty   []*entry   // sessions with pending events, in arrival order
	events  eventQueue // adapter.event notifications (events.go)
	// holds counts, per session id, the requests of this connection whose
	// responses the session's notifications wait for (hold.go).
	holds map[string]int

	// arena holds the frames of the last collect, which only the writer
	// goroutine calls: reused, so that a stream of session.output does
	// not allocate its size again in garbage (at most maxKeptFrameBuf is
	// kept).
	arena []byte
}

// delivery is what one connection has seen of one session.
type delivery struct {
	cursor    int64  // transcript position already sent
	lastSeq   uint64 // sequence of the last session.changed sent
	pending   bool   // in dirty
	exit      bool   // session.exited to send
	exitSent  bool
	lifecycle bool   // adapter.lifecycle to consider
	lastLife  []byte // the lifecycle last sent (or current at subscription)
}

// filter scopes notifications; empty means every session.
type filter struct {
	sessions map[string]struct{}
	adapters map[string]struct{}
}

func newFilter(sessions, adapters []string) filter {
	f := filter{sessions: make(map[string]struct{}, len(sessions)), adapters: make(map[string]struct{}, len(adapters))}
	for _, id := range sessions {
		f.sessions[id] = struct{}{}
	}
	for _, id := range adapters {
		f.adapters[id] = struct{}{}
	}
	return f
}

func (f filter) match(e *entry) bool {
	if len(f.sessions) == 0 && len(f.adapters) == 0 {
		return true
	}
	if _, ok := f.sessions[e.id]; ok {
		return true
	}
	_, ok := f.adapters[e.adapter]
	return ok && e.adapter != ""
}

func newNotifier(log *slog.Logger, reg *registry) *notifier {
	return &notifier{log: log, reg: reg, ready: make(chan struct{}, 1), subs: make(map[*entry]*delivery), holds: make(map[string]int)}
}

// post records an event of e. It never blocks.
func (n *notifier) post(e *entry, ev event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.enabled || !n.filter.match(e) {
		return
	}
	d := n.subs[e]
	if d == nil {
		if ev == evGone || isDone(e.done) {
			// Removed, and nothing more to tell: a delivery made now
			// would keep the session with nothing to end it.
			return
		}
		// A session created after the subscription: everything it printed
		// is new to this client.
		d = &delivery{}
		n.subs[e] = d
	}
	if ev&evExited != 0 && !d.exitSent {
		d.exit = true
	}
	if ev&evLifecycle != 0 {
		d.lifecycle = true
	}
	if !d.pending {
		d.pending = true
		n.dirty = append(n.dirty, e)
	}
	select {
	case n.ready <- struct{}{}:
	default:
	}
}

// set applies server.set_notifications. Turning notifications on (or
// bringing a session into the filter) seeds that session's cursor at its
// current position, so no retained output is replayed.
func (n *notifier) set(enabled bool, f filter, current []*entry) {
	n.mu.Lock()
	defer n.mu.Unlock()
	wasOn, old := n.enabled, n.filter
	n.enabled, n.filter = enabled, f
	if !enabled {
		clear(n.subs)
		n.dirty = nil
		n.events.reset(false, filter{})
		return
	}
	// Only the sessions in the filter are followed: a delivery kept for
	// another would keep its session once closed, as nothing posts for it
	// (post filters first) and so nothing would let it go.
	for e := range n.subs {
		if !f.match(e) {
			delete(n.subs, e)
		}
	}
	for _, e := range current {
		if !f.match(e) || e.removed.Load() {
			continue // not followed, or on its way out
		}
		if d := n.subs[e]; d != nil && wasOn && old.match(e) {
			continue // already followed: keep its cursor
		}
		// A new delivery replaces any old one; collect drops work done for
		// a replaced delivery.
		n.subs[e] = &delivery{
			cursor:   e.sess.TranscriptCursor(),
			lastSeq:  e.sess.Sequence(),
			exitSent: isDone(e.sess.Exited()),
			lastLife: encodeLifecycle(e.lifecycle()),
		}
	}
	n.dirty = slices.DeleteFunc(n.dirty, func(e *entry) bool {
		d := n.subs[e]
		return d == nil || !d.pending
	})
}

// pending reports whether collect has anything to do: a session with
// pending events that is not held, or an event it may deliver.
func (n *notifier) pending() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, e := range n.dirty {
		if !n.heldLocked(e.id) {
			return true
		}
	}
	return n.events.pending(n.heldLocked)
}

type job struct {
	e     *entry
	d     *delivery
	state delivery
}

// collect builds the notification frames for every session with pending
// events: session.changed if the sequence advanced, session.output with the
// (redacted) transcript delta, session.exited once, and adapter.lifecycle
// with the adapter's current status if it differs from the last one sent.
// Sessions whose notifications are held (hold.go) stay pending. It runs
// on the writer goroutine only, and the frames it returns are valid until
// it runs again (they are built in the notifier's arena).
func (n *notifier) collect() [][]byte {
	n.mu.Lock()
	jobs := make([]job, 0, len(n.dirty))
	kept := n.dirty[:0]
	for _, e := range n.dirty {
		d := n.subs[e]
		if d == nil {
			continue
		}
		if n.heldLocked(e.id) {
			kept = append(kept, e)
			continue
		}
		d.pending = false
		jobs = append(jobs, job{e: e, d: d, state: *d})
		d.lifecycle = false
	}
	clear(n.dirty[len(kept):])
	n.dirty = kept
	evs, evDropped := n.events.take(n.heldLocked)
	n.mu.Unlock()

	type result struct {
		frames   [2]int // its frames' indices in ends
		cursor   int64
		seq      uint64
		exitNow  bool
		lastLife []byte
	}
	// The frames are built one after another in the arena, which the
	// last collect's frames, written by now, are done with.
	buf := n.arena[:0]
	var ends []int // where each frame ends in buf
	add := func(method string, params any) {
		b, err := appendMarshal(buf, wireNotification{JSONRPC: wireVersion, Method: method, Params: params})
		if err != nil {
			n.log.Error("encode notification", "method", method, "err", err)
			return
		}
		buf, ends = b, append(ends, len(b))
	}
	results := make([]result, len(jobs))
	for i, j := range jobs {
		res := &results[i]
		res.frames[0] = len(ends)
		seq := j.e.sess.Sequence()
		// Redacted as one stream: a tail that may begin a secret is held
		// until more output, the registry's settle wake-up or the exit.
		out := j.e.sess.OutputSince(j.state.cursor, nil)
		res.cursor, res.seq, res.lastLife = out.Next, max(seq, j.state.lastSeq), j.state.lastLife
		if seq > j.state.lastSeq {
			buf = appendChangedNotification(buf, changedParams{Session: j.e.id, Sequence: seq})
			ends = append(ends, len(buf))
		}
		if out.Text != "" || out.Dropped {
			// Encoded by hand (output_frame.go): it grows with the output.
			buf = appendOutputNotification(buf, outputParams{Session: j.e.id, Sequence: seq, Output: out.Text, Dropped: out.Dropped})
			ends = append(ends, len(buf))
		}
		if j.state.exit {
			ep := exitedParams{Session: j.e.id, Sequence: seq}
			if st, ok := j.e.sess.ExitStatus(); ok {
				ep.Exit = &st
			}
			add(notifyExited, ep)
			res.exitNow = true
		}
		if j.state.lifecycle {
			// The current status, not the posted one: callbacks from two
			// goroutines may arrive out of order, the handle cannot.
			if st := j.e.lifecycle(); st != nil {
				if b := encodeLifecycle(st); !bytes.Equal(b, j.state.lastLife) {
					add(notifyLifecycle, lifecycleParams{Adapter: j.e.adapter, Session: j.e.id, Lifecycle: b})
					res.lastLife = b
				}
			}
		}
		res.frames[1] = len(ends)
	}

	evFrames := n.encodeEvents(evs, evDropped)
	if cap(buf) <= maxKeptFrameBuf {
		n.arena = buf
	} else {
		n.arena = nil
	}

	n.mu.Lock()
	defer n.mu.Unlock()
	frames := make([][]byte, 0, len(ends)+len(evFrames))
	for i, j := range jobs {
		if !n.enabled || n.subs[j.e] != j.d {
			continue // turned off or re-seeded meanwhile: drop what was built
		}
		if n.heldLocked(j.e.id) {
			// A request took a hold while this was built: what was read
			// may already show its effect. Drop it and build it again
			// once the response is out.
			if j.state.lifecycle {
				j.d.lifecycle = true
			}
			if !j.d.pending {
				j.d.pending = true
				n.dirty = append(n.dirty, j.e)
			}
			continue
		}
		res := results[i]
		j.d.cursor, j.d.lastSeq, j.d.lastLife = res.cursor, res.seq, res.lastLife
		if res.exitNow {
			j.d.exit, j.d.exitSent = false, true
		}
		for k := res.frames[0]; k < res.frames[1]; k++ {
			start := 0
			if k > 0 {
				start = ends[k-1]
			}
			frames = append(frames, buf[start:ends[k]:ends[k]])
		}
		if j.e.removed.Load() && !j.d.pending && isDone(j.e.done) {
			delete(n.subs, j.e)
		}
	}
	if n.enabled && n.events.isOn() {
		frames = append(frames, evFrames...)
	}
	return frames
}

type changedParams struct {
	Session  string `json:"session"`
	Sequence uint64 `json:"sequence"`
}

// exitedParams is session.exited: the reference's fields plus how the child
// ended (additive).
type exitedParams struct {
	Session  string                `json:"session"`
	Sequence uint64                `json:"sequence"`
	Exit     *ptywright.ExitStatus `json:"exit,omitempty"`
}

type outputParams struct {
	Session  string `json:"session"`
	Sequence uint64 `json:"sequence"`
	Output   string `json:"output"`
	Dropped  bool   `json:"dropped,omitempty"`
}

type lifecycleParams struct {
	Adapter   string          `json:"adapter"`
	Session   string          `json:"session"`
	Lifecycle json.RawMessage `json:"lifecycle"`
}

// encodeLifecycle returns st's JSON form, nil for nil: notifications are
// deduplicated on it.
func encodeLifecycle(st *contract.LifecycleStatus) []byte {
	if st == nil {
		return nil
	}
	b, err := marshal(st)
	if err != nil {
		return nil // A status is strings, numbers and a time: cannot fail.
	}
	return b
}
