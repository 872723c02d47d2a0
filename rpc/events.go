package rpc

import (
	"bytes"
	"encoding/json"
	"sync"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/secrets"
)

// notifyEvent carries one core or plugin event to a client subscribed
// with server.set_notifications {enabled: true, events: true}.
const notifyEvent = "adapter.event"

// MaxQueuedEvents bounds the adapter.event notifications one connection
// holds while its writer is busy. Unlike session notifications, events are
// never coalesced: each is delivered, in order, unless a client stops
// reading long enough for this many to pile up; then the oldest are
// dropped and the next one delivered says how many in dropped_events.
const MaxQueuedEvents = 1024

// eventQueue is one connection's pending events. It has its own lock,
// taken last and around nothing else, because events are posted from
// inside plugin calls and handle locks (a classify emits) that the
// notifier's own lock may be waiting for.
type eventQueue struct {
	mu      sync.Mutex
	on      bool
	filter  filter // a copy of the notifier's, set with on
	queue   []events.Event
	dropped int
}

// reset turns delivery on or off with filter f. Turning it off forgets
// what was queued; staying on keeps it (the new filter applies to what
// comes next).
func (q *eventQueue) reset(on bool, f filter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !on {
		q.queue, q.dropped = nil, 0
	}
	q.on, q.filter = on, f
}

// take removes the events that may be delivered: the queue up to the
// first event about a held session (hold.go), which waits with everything
// behind it, so events keep their order.
func (q *eventQueue) take(held func(session string) bool) ([]events.Event, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.deliverable(held)
	if n == 0 {
		return nil, 0
	}
	evs, dropped := q.queue[:n:n], q.dropped
	q.queue, q.dropped = q.queue[n:], 0
	if len(q.queue) == 0 {
		q.queue = nil
	}
	return evs, dropped
}

// pending reports whether take would return something.
func (q *eventQueue) pending(held func(session string) bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.deliverable(held) > 0
}

// deliverable counts the events at the head of the queue that are about
// no held session. q.mu must be held.
func (q *eventQueue) deliverable(held func(session string) bool) int {
	for i, ev := range q.queue {
		if held(ev.Session) {
			return i
		}
	}
	return len(q.queue)
}

func (q *eventQueue) isOn() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.on
}

// setEvents applies server.set_notifications' events flag (off unless
// notifications are enabled too) and filter.
func (n *notifier) setEvents(on bool, f filter) {
	n.events.reset(on, f)
}

// postEvent is the connection's event bus subscriber: it queues ev when
// the client wants events and ev is in its filter. It never blocks.
func (n *notifier) postEvent(ev events.Event) {
	q := &n.events
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.on || !q.filter.matchEvent(ev) {
		return
	}
	if len(q.queue) >= MaxQueuedEvents {
		q.queue[0] = events.Event{} // release the payload
		q.queue = q.queue[1:]
		q.dropped++
	}
	q.queue = append(q.queue, ev)
	select {
	case n.ready <- struct{}{}:
	default:
	}
}

// matchEvent applies the adapters/sessions filter to an event: an event
// about no session or adapter (a hook call's, say) passes only an empty
// filter.
func (f filter) matchEvent(ev events.Event) bool {
	if len(f.sessions) == 0 && len(f.adapters) == 0 {
		return true
	}
	if _, ok := f.sessions[ev.Session]; ok && ev.Session != "" {
		return true
	}
	_, ok := f.adapters[ev.Adapter]
	return ok && ev.Adapter != ""
}

// eventParams is adapter.event's params.
type eventParams struct {
	Event   string `json:"event"`
	Plugin  string `json:"plugin,omitempty"`
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	// Payload is the CoreEvent of a core event, the plugin's value for a
	// plugin event; its strings are redacted.
	Payload   json.RawMessage `json:"payload"`
	Timestamp string          `json:"timestamp"`
	// DroppedEvents counts the events dropped just before this one
	// because the client did not read them in time.
	DroppedEvents int `json:"dropped_events,omitempty"`
}

// sessionCols is the current width of the session an event is about, 0
// when it names none the server knows: a payload carries no width, and
// what a plugin quotes from the screen it quotes at this width, unless the
// session was resized between the emit and now.
func (n *notifier) sessionCols(id string) int {
	if id == "" || n.reg == nil {
		return 0
	}
	e, err := n.reg.get(id)
	if err != nil {
		return 0
	}
	return e.sess.Size().Cols
}

// encodeEvents builds the adapter.event frames; the first carries the
// count of events dropped before it.
func (n *notifier) encodeEvents(evs []events.Event, dropped int) [][]byte {
	frames := make([][]byte, 0, len(evs))
	for _, ev := range evs {
		b, err := encodeNotification(notifyEvent, eventParams{
			Event:         ev.Name,
			Plugin:        ev.Plugin,
			Session:       ev.Session,
			Adapter:       ev.Adapter,
			Payload:       redactJSON(ev.Payload, n.sessionCols(ev.Session)),
			Timestamp:     events.Timestamp(ev.Time),
			DroppedEvents: dropped,
		})
		if err != nil {
			n.log.Error("encode notification", "method", notifyEvent, "event", ev.Name, "err", err)
			continue
		}
		dropped = 0
		frames = append(frames, b)
	}
	return frames
}

// redactJSON redacts every string and member name in a JSON value with
// the default policy, as notifications are; a value it cannot decode
// becomes null. cols is the width of the screen of the event's session (0:
// none): a list of strings, or a string's lines, are read as its rows, so a
// secret the terminal wrapped is hidden on each row it covers.
func redactJSON(raw json.RawMessage, cols int) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keeps integers beyond 2^53 exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage("null")
	}
	red := ptywright.DefaultRedactor()
	repl := ptywright.DefaultRedactionPolicy().Replacement
	out, err := marshal(secrets.Tree{
		Text: func(s string) string { return secrets.RedactText(s, cols, red.Spans, repl) },
		Rows: func(rows []string) []string { return secrets.RedactRows(rows, cols, red.Spans, repl) },
		Key:  red.Redact,
	}.Value(v))
	if err != nil {
		return json.RawMessage("null")
	}
	return out
}
