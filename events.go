package ptywright

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"ptywright/events"
)

// CoreEvent is the one payload every core event carries, so consumers
// read session:* and adapter:* events the same way.
type CoreEvent struct {
	// Event is one of the core event names (events.CoreNames).
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
	// milliseconds): see events.Timestamp.
	Timestamp string `json:"timestamp"`
}

// emitCore emits the core event ce on bus, with ce as its payload;
// ce.Timestamp is set when empty. It fails, emitting nothing, when
// ce.Event is not a core event name (events.CoreNames).
func emitCore(bus *events.Bus, ce CoreEvent) error {
	if !events.IsCore(ce.Event) {
		return fmt.Errorf("%w: %q is not a core event (%s)", events.ErrInvalid, ce.Event, strings.Join(events.CoreNames(), ", "))
	}
	now := time.Now()
	if ce.Timestamp == "" {
		ce.Timestamp = events.Timestamp(now)
	}
	raw, err := json.Marshal(ce)
	if err != nil {
		return fmt.Errorf("%w: %v", events.ErrInvalid, err)
	}
	return bus.Emit(events.Event{Name: ce.Event, Session: ce.Session, Adapter: ce.Adapter, Payload: raw, Time: now})
}

// PublishEvents makes the session report its core events on bus, about
// scope (the host's ids for the session and its adapter): session:created
// at once, then session:resized after every resize that changes the size
// and session:exited once, when the program has exited and its output has
// been read (at once, after session:created, if that already happened).
// Every event a session publishes reaches each bus in the order it
// happened, session:created first. A session may publish on several buses;
// a nil bus is ignored. The bus's subscribers run on the goroutine that
// made the change and must not block (see events.Bus).
func (s *Session) PublishEvents(bus *events.Bus, scope events.Scope) {
	if bus == nil {
		return
	}
	s.pub.add(publishTarget{bus: bus, scope: scope}, s.Sequence)
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
	bus   *events.Bus
	scope events.Scope
}

func (t publishTarget) emit(name string, seq uint64, fill func(*CoreEvent)) {
	ce := CoreEvent{Event: name, Session: t.scope.Session, Adapter: t.scope.Adapter, Sequence: seq}
	if fill != nil {
		fill(&ce)
	}
	// emitCore fails only for a name that is not a core event.
	_ = emitCore(t.bus, ce)
}

// emitLocked emits one event to every target; p.mu must be held.
func (p *publisher) emitLocked(name string, seq uint64, fill func(*CoreEvent)) {
	for _, t := range p.targets {
		t.emit(name, seq, fill)
	}
}

// add starts publishing on t: session:created at once, and session:exited
// after it when the exit was published already.
func (p *publisher) add(t publishTarget, seq func() uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t.emit(events.SessionCreated, seq(), nil)
	if p.exitSent {
		t.emit(events.SessionExited, seq(), p.exitFill)
	}
	p.targets = append(p.targets, t)
}

// resize runs apply, which changes the size and reports the size before
// and after, and emits session:resized when they differ. The lock is held
// across both, so that session:resized events keep the order of the
// resizes (see the lock order in doc.go).
func (p *publisher) resize(apply func() (before, after Size, err error), seq func() uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	before, after, err := apply()
	if err != nil || after == before {
		return err
	}
	p.emitLocked(events.SessionResized, seq(), func(ce *CoreEvent) { ce.Size = &after })
	return nil
}

// exit emits session:exited with how the program ended and then, still
// holding the lock (so that no bus given meanwhile misses the event or
// hears it twice), calls mark, which makes the exit visible.
func (p *publisher) exit(seq uint64, st ExitStatus, mark func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exitSent = true
	p.exitFill = func(ce *CoreEvent) { ce.Exit = &st }
	p.emitLocked(events.SessionExited, seq, p.exitFill)
	mark()
}
