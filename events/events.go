// Package events is the bus that carries core and plugin events: the
// session:* and adapter:* events the library reports (their payload is
// ptywright.CoreEvent) and the events plugins emit in their own namespace,
// "<plugin>:<event>". A bus has no goroutine and nothing to close: a
// plugins.Registry makes one, the JSON-RPC server shares one, and a Go
// program may make its own and give it to Session.PublishEvents and
// HandleOptions.Events. It imports nothing of ptywright's: the event
// names and their grammar (names.go) are its own.
package events

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
)

// Core event names. The core defines them and their payload
// (ptywright.CoreEvent); plugins may handle them (ptywright.on) but never
// emit them.
const (
	// SessionCreated: a session was registered and its program started.
	SessionCreated = "session:created"
	// SessionExited: a session's program exited (once per session).
	SessionExited = "session:exited"
	// SessionResized: a session's terminal size changed.
	SessionResized = "session:resized"
	// AdapterStateChanged: an adapter's classified state differs from the
	// one it reported before (the first classification counts).
	AdapterStateChanged = "adapter:state_changed"
	// AdapterPolicyDecision: a policy's rule decided a permission dialog
	// (HandleOptions.Policy): which rule, what it decided and what became
	// of the answer.
	AdapterPolicyDecision = "adapter:policy_decision"
)

// CoreNames returns the core event names, sorted.
func CoreNames() []string {
	return []string{AdapterPolicyDecision, AdapterStateChanged, SessionCreated, SessionExited, SessionResized}
}

// IsCore reports whether name is a core event name.
func IsCore(name string) bool { return slices.Contains(CoreNames(), name) }

// ErrInvalid: an event name is malformed, outside the emitter's namespace,
// or a core name used for something else.
var ErrInvalid = errors.New("ptywright: invalid event")

// Timestamp formats t as event timestamps are written: RFC 3339 (an ISO
// 8601 profile) in UTC with milliseconds, "2026-05-01T12:00:00.000Z".
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// Scope says which session and adapter an event is about; ids are the
// host's (the JSON-RPC server's "s1", "e1"). Either may be empty.
type Scope struct {
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
}

// Event is one event on a Bus.
type Event struct {
	// Name is "<namespace>:<event>": a core name or a plugin's own.
	Name string `json:"event"`
	// Plugin is the emitting plugin, "" for core events.
	Plugin string `json:"plugin,omitempty"`
	// Session and Adapter scope the event; subscribers filter on them.
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	// Payload is the event's JSON value: a ptywright.CoreEvent for core
	// events, whatever the plugin passed (null when nothing) for plugin
	// events.
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

// Binder is implemented by extensions that emit and handle events (a Lua
// extension does); ptywright.ExtensionHandle binds them to its bus and
// scope.
type Binder interface {
	BindEvents(bus *Bus, scope Scope)
}

// Bus carries core and plugin events to subscribers. Delivery is
// fire-and-forget: Emit calls every subscriber synchronously, and
// subscribers must only record the event (queue it, set a flag) and
// return, never block. A subscriber that panics is logged and skipped, so
// one bad consumer never breaks the emitter. The bus has no goroutine and
// nothing to close; it is owned by whoever creates it, never global.
type Bus struct {
	log  *slog.Logger
	mu   sync.Mutex // serialises Subscribe and unsubscribe
	subs atomic.Pointer[[]*sub]
}

type sub struct{ fn func(Event) }

// New returns an empty bus. log receives subscriber panics; nil means
// slog.Default().
func New(log *slog.Logger) *Bus {
	if log == nil {
		log = slog.Default()
	}
	return &Bus{log: log}
}

// Subscribe adds fn; the returned function removes it (and may be called
// more than once). fn is called from the emitter's goroutine and must not
// block.
func (b *Bus) Subscribe(fn func(Event)) (unsubscribe func()) {
	s := &sub{fn: fn}
	b.mu.Lock()
	old := b.list()
	next := make([]*sub, 0, len(old)+1)
	next = append(append(next, old...), s)
	b.subs.Store(&next)
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			next := slices.DeleteFunc(slices.Clone(b.list()), func(x *sub) bool { return x == s })
			b.subs.Store(&next)
		})
	}
}

func (b *Bus) list() []*sub {
	if p := b.subs.Load(); p != nil {
		return *p
	}
	return nil
}

// Emit checks ev's name and delivers it to every subscriber. Go callers
// may emit core events (their payload is a ptywright.CoreEvent) and
// events in any plugin namespace; Lua plugins go through ptywright.emit,
// which confines them to their own.
func (b *Bus) Emit(ev Event) error {
	if _, _, ok := SplitName(ev.Name); !ok {
		return fmt.Errorf("%w: name %q must be \"<namespace>:<event>\" in lowercase letters, digits, '-' and '_'", ErrInvalid, ev.Name)
	}
	if isCoreNamespace(ev.Name) && !IsCore(ev.Name) {
		return fmt.Errorf("%w: %q is in a core namespace but is not a core event (%s)", ErrInvalid, ev.Name, strings.Join(CoreNames(), ", "))
	}
	if len(ev.Payload) == 0 {
		ev.Payload = json.RawMessage("null")
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	for _, s := range b.list() {
		b.call(s, ev)
	}
	return nil
}

func (b *Bus) call(s *sub, ev Event) {
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
	ns, _, _ := SplitName(name)
	return IsHostNamespace(ns)
}
