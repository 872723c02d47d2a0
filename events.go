package ptywright

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ptywright/manifest"
)

// Core event names. The core defines them and their payload (CoreEvent);
// plugins may handle them (ptywright.on) but never emit them: plugin
// events live in the plugin's own namespace, "<plugin>:<event>".
const (
	// EventSessionCreated: a session was registered and its program started.
	EventSessionCreated = "session:created"
	// EventSessionExited: a session's program exited (once per session).
	EventSessionExited = "session:exited"
	// EventSessionResized: a session's terminal size changed.
	EventSessionResized = "session:resized"
	// EventAdapterStateChanged: an adapter's classified state differs from
	// the one it reported before (the first classification counts).
	EventAdapterStateChanged = "adapter:state_changed"
)

// CoreEventNames returns the core event names, sorted.
func CoreEventNames() []string {
	return []string{EventAdapterStateChanged, EventSessionCreated, EventSessionExited, EventSessionResized}
}

// ErrInvalidEvent: an event name is malformed, outside the emitter's
// namespace, or a core name used for something else.
var ErrInvalidEvent = errors.New("ptywright: invalid event")

// CoreEvent is the one payload every core event carries, so consumers
// read session:* and adapter:* events the same way.
type CoreEvent struct {
	// Event is one of the core event names.
	Event string `json:"event"`
	// Session is the id of the session the event is about.
	Session string `json:"session"`
	// Adapter is the id of the adapter driving the session, if any.
	Adapter string `json:"adapter,omitempty"`
	// Sequence is the session's screen sequence when the event happened.
	Sequence uint64 `json:"sequence"`
	// State is the new classified state (adapter:state_changed only).
	State string `json:"state,omitempty"`
	// PreviousState is the state reported before, "" for the first one
	// (adapter:state_changed only).
	PreviousState string `json:"previous_state,omitempty"`
	// Size is the new terminal size (session:resized only).
	Size *Size `json:"size,omitempty"`
	// Exit is how the program ended (session:exited only).
	Exit *ExitStatus `json:"exit,omitempty"`
	// Timestamp is when it happened, in ISO 8601 (RFC 3339, UTC,
	// milliseconds): see EventTime.
	Timestamp string `json:"timestamp"`
}

// EventTime formats t as event timestamps are written: RFC 3339 (an ISO
// 8601 profile) in UTC with milliseconds, "2026-05-01T12:00:00.000Z".
func EventTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// EventScope says which session and adapter an event is about; ids are the
// host's (the JSON-RPC server's "s1", "e1"). Either may be empty.
type EventScope struct {
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
}

// Event is one event on an EventBus.
type Event struct {
	// Name is "<namespace>:<event>": a core name or a plugin's own.
	Name string `json:"event"`
	// Plugin is the emitting plugin, "" for core events.
	Plugin string `json:"plugin,omitempty"`
	// Session and Adapter scope the event; subscribers filter on them.
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	// Payload is the event's JSON value: a CoreEvent for core events,
	// whatever the plugin passed (null when nothing) for plugin events.
	Payload json.RawMessage `json:"payload"`
	// Time is when it was emitted; Emit sets it when zero.
	Time time.Time `json:"-"`

	// Source is the emitter, for emitters that tell their own events
	// apart: a Lua extension (package luahost) sets itself and does not
	// hear the events whose Source it is.
	Source any `json:"-"`
	// Depth counts handler-emitted generations: an event a handler emits
	// while handling an event of depth n has depth n+1. Package luahost
	// drops chains past its bound, so plugins answering each other cannot
	// loop forever.
	Depth int `json:"-"`
}

// EventBus carries core and plugin events to subscribers. Delivery is
// fire-and-forget: Emit calls every subscriber synchronously, and
// subscribers must only record the event (queue it, set a flag) and
// return, never block. A subscriber that panics is logged and skipped, so
// one bad consumer never breaks the emitter. The bus has no goroutine and
// nothing to close; it is owned by whoever creates it (a plugins.Registry
// makes one, the JSON-RPC server shares it), never global.
type EventBus struct {
	log  *slog.Logger
	mu   sync.Mutex // serialises Subscribe and unsubscribe
	subs atomic.Pointer[[]*eventSub]
}

type eventSub struct{ fn func(Event) }

// NewEventBus returns an empty bus. log receives subscriber panics; nil
// means slog.Default().
func NewEventBus(log *slog.Logger) *EventBus {
	if log == nil {
		log = slog.Default()
	}
	return &EventBus{log: log}
}

// Subscribe adds fn; the returned function removes it (and may be called
// more than once). fn is called from the emitter's goroutine and must not
// block.
func (b *EventBus) Subscribe(fn func(Event)) (unsubscribe func()) {
	sub := &eventSub{fn: fn}
	b.mu.Lock()
	old := b.list()
	next := make([]*eventSub, 0, len(old)+1)
	next = append(append(next, old...), sub)
	b.subs.Store(&next)
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			next := slices.DeleteFunc(slices.Clone(b.list()), func(s *eventSub) bool { return s == sub })
			b.subs.Store(&next)
		})
	}
}

func (b *EventBus) list() []*eventSub {
	if p := b.subs.Load(); p != nil {
		return *p
	}
	return nil
}

// Emit checks ev's name and delivers it to every subscriber. Go callers
// may emit core events (prefer EmitCore, which builds the payload) and
// events in any plugin namespace; Lua plugins go through ptywright.emit,
// which confines them to their own.
func (b *EventBus) Emit(ev Event) error {
	if _, _, ok := manifest.SplitEvent(ev.Name); !ok {
		return fmt.Errorf("%w: name %q must be \"<namespace>:<event>\" in lowercase letters, digits, '-' and '_'", ErrInvalidEvent, ev.Name)
	}
	if isCoreNamespace(ev.Name) && !slices.Contains(CoreEventNames(), ev.Name) {
		return fmt.Errorf("%w: %q is in a core namespace but is not a core event (%s)", ErrInvalidEvent, ev.Name, strings.Join(CoreEventNames(), ", "))
	}
	if len(ev.Payload) == 0 {
		ev.Payload = json.RawMessage("null")
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	b.deliver(ev)
	return nil
}

// EmitCore emits a core event with ce as its payload; ce.Timestamp is set
// when empty.
func (b *EventBus) EmitCore(ce CoreEvent) error {
	if !slices.Contains(CoreEventNames(), ce.Event) {
		return fmt.Errorf("%w: %q is not a core event (%s)", ErrInvalidEvent, ce.Event, strings.Join(CoreEventNames(), ", "))
	}
	now := time.Now()
	if ce.Timestamp == "" {
		ce.Timestamp = EventTime(now)
	}
	raw, err := json.Marshal(ce)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidEvent, err)
	}
	b.deliver(Event{Name: ce.Event, Session: ce.Session, Adapter: ce.Adapter, Payload: raw, Time: now})
	return nil
}

func (b *EventBus) deliver(ev Event) {
	for _, s := range b.list() {
		b.call(s, ev)
	}
}

func (b *EventBus) call(s *eventSub, ev Event) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("event subscriber panicked", "event", ev.Name, "panic", fmt.Sprint(r))
		}
	}()
	s.fn(ev)
}

// isCoreNamespace reports whether an event name is in a namespace the
// core owns.
func isCoreNamespace(name string) bool {
	ns, _, _ := manifest.SplitEvent(name)
	return manifest.IsReservedNamespace(ns)
}

// PublishEvents makes the session report its core events on bus, about
// scope (the host's ids for the session and its adapter): session:created
// at once, then session:resized after every resize that changes the size
// and session:exited once, when the program has exited and its output has
// been read (at once, after session:created, if that already happened).
// Every event a session publishes reaches each bus in the order it
// happened, session:created first. A session may publish on several buses;
// a nil bus is ignored. The bus's subscribers run on the goroutine that
// made the change and must not block (see EventBus).
func (s *Session) PublishEvents(bus *EventBus, scope EventScope) {
	if bus == nil {
		return
	}
	s.pub.mu.Lock()
	defer s.pub.mu.Unlock()
	t := publishTarget{bus: bus, scope: scope}
	t.emit(EventSessionCreated, s.Sequence(), nil)
	if s.pub.exitSent {
		t.emit(EventSessionExited, s.Sequence(), s.pub.exitFill)
	}
	s.pub.targets = append(s.pub.targets, t)
}

// publisher holds the buses a session publishes its core events on. Its
// lock is taken before Session.mu, and held while an event is emitted so
// that events keep the order of the changes they report.
type publisher struct {
	mu       sync.Mutex
	targets  []publishTarget
	exitSent bool             // session:exited went to every target
	exitFill func(*CoreEvent) // its fields, for targets added later
}

type publishTarget struct {
	bus   *EventBus
	scope EventScope
}

func (t publishTarget) emit(name string, seq uint64, fill func(*CoreEvent)) {
	ce := CoreEvent{Event: name, Session: t.scope.Session, Adapter: t.scope.Adapter, Sequence: seq}
	if fill != nil {
		fill(&ce)
	}
	// EmitCore fails only for a name that is not a core event.
	_ = t.bus.EmitCore(ce)
}

// emitLocked emits one event to every target; p.mu must be held.
func (p *publisher) emitLocked(name string, seq uint64, fill func(*CoreEvent)) {
	for _, t := range p.targets {
		t.emit(name, seq, fill)
	}
}

// exit emits session:exited with how the program ended and then, still
// holding the lock (so that no bus given meanwhile misses the event or
// hears it twice), calls mark, which makes the exit visible.
func (p *publisher) exit(seq uint64, st ExitStatus, mark func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exitSent = true
	p.exitFill = func(ce *CoreEvent) { ce.Exit = &st }
	p.emitLocked(EventSessionExited, seq, p.exitFill)
	mark()
}
