package luart

import (
	"encoding/json"
	"log/slog"
	"time"

	"ptywright/manifest"
)

// Classes are the host's error sentinels the runtime wraps in what it
// returns, so errors.Is works against the host's public errors without
// this package importing them.
type Classes struct {
	// Timeout and Cancelled: the caller's context ended a call (deadline
	// or cancellation).
	Timeout, Cancelled error
	// InvalidParams: ptywright.invalid_params rejected the caller's params.
	InvalidParams error
	// Refused: ptywright.refuse declined an intent the screen does not
	// allow now; nil falls back to InvalidParams.
	Refused error
}

// Host is everything the runtime reaches outside its Lua state: the
// host's error classes, the validation of action arguments, redaction and
// the event bus, as values and callbacks. It is shared by every runtime of
// one embedder and must not change once a runtime uses it.
type Host struct {
	Errors Classes
	// Version is ptywright.version.
	Version string
	// ParseKey and ParseSignal accept the names ptywright.action.key and
	// ptywright.action.signal take; their error is the argument error.
	ParseKey, ParseSignal func(name string) error
	// CheckSize validates ptywright.action.resize's rows and cols; arg is
	// the 1-based argument at fault.
	CheckSize func(rows, cols int) (arg int, err error)
	// Redact applies the default redaction policy to what a plugin logs
	// and to the failures logged for it.
	Redact func(string) string
	// CoreEvents are the events of the reserved namespaces (session:*,
	// adapter:*) a handler may name.
	CoreEvents []string
	// MaxEventDepth bounds chains of handlers emitting events: an event
	// emitted by a handler of an event more generations removed from its
	// first cause is dropped (and logged).
	MaxEventDepth int
	// EventTime formats an event's time for a handler's meta.timestamp.
	EventTime func(time.Time) string
}

// Scope names what one instance serves: the host's session and adapter
// ids (empty when none). It tags what the instance emits and logs, and is
// what ptywright.context() returns.
type Scope struct {
	Session, Adapter string
}

// Event is one event crossing the runtime's boundary: what a plugin emits
// (through Config.Emit) and what its handlers receive (CallHandlers).
type Event struct {
	Name    string
	Plugin  string
	Session string
	Adapter string
	Payload json.RawMessage
	Time    time.Time
	// Depth is the event's generation: 0 for an event emitted outside any
	// handler, one more for each handler it was emitted from. The host
	// passes it back unchanged with the event.
	Depth int
}

// Config is one runtime's setting.
type Config struct {
	Manifest manifest.Manifest
	// Source is the entrypoint's text.
	Source []byte
	// Limits bound every call; the zero value means the defaults.
	Limits Limits
	Host   *Host
	// Inline: a one-shot script, without emit, on, on_cleanup and log.
	Inline bool
	Scope  Scope
	// Logger receives the plugin's log records; nil means slog.Default().
	Logger *slog.Logger
	// Emit, when set, delivers what the plugin emits; nil makes
	// ptywright.emit a no-op.
	Emit func(Event)
	// Handled, when set, is told which events the plugin has handlers for
	// whenever that changes (on() and a state replaced).
	Handled func(events map[string]bool)
}
