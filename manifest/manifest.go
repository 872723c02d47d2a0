package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kind says what a plugin is for. The host loop only instantiates
// adapters through adapter.start; macros and matchers are called by name.
type Kind string

// Plugin kinds a manifest may declare.
const (
	// KindAdapter drives one TUI: it classifies screens and plans intents.
	KindAdapter Kind = "adapter"
	// KindMacro bundles reusable action sequences.
	KindMacro Kind = "macro"
	// KindMatcher exports predicates for the lua matcher.
	KindMatcher Kind = "matcher"
)

// Valid reports whether k is one of the declared plugin kinds.
func (k Kind) Valid() bool {
	return slices.Contains(manifestKinds, k)
}

var manifestKinds = []Kind{KindAdapter, KindMacro, KindMatcher}

// Kinds returns every plugin kind in canonical order, as a fresh copy.
func Kinds() []Kind { return slices.Clone(manifestKinds) }

// Runtime names the engine that executes a plugin's entrypoint.
type Runtime string

// Plugin runtimes a manifest may name.
const (
	// RuntimeLua runs the entrypoint in the embedded go-lua interpreter.
	RuntimeLua Runtime = "lua"
	// RuntimeWASM is reserved so manifests written for a future WASM host
	// get a clear "not available" error instead of "unknown runtime".
	// Validation rejects it in this build.
	RuntimeWASM Runtime = "wasm"
)

// Valid reports whether r is a known runtime name, available or not.
func (r Runtime) Valid() bool {
	return r == RuntimeLua || r == RuntimeWASM
}

// entrypointExt is the file extension each runtime's entrypoint must have,
// so a manifest cannot hand Lua source to a WASM host or the reverse.
func (r Runtime) entrypointExt() string {
	switch r {
	case RuntimeLua:
		return ".lua"
	case RuntimeWASM:
		return ".wasm"
	}
	return ""
}

// Permission is a host capability a plugin must declare before it may use
// it. The strings are the wire form used in manifests and in
// PermissionDenied error data.
type Permission string

// Permissions a manifest may request.
const (
	PermissionSessionSpawn   Permission = "session.spawn"
	PermissionSessionKill    Permission = "session.kill"
	PermissionSessionResize  Permission = "session.resize"
	PermissionScreenRead     Permission = "screen.read"
	PermissionTranscriptRead Permission = "transcript.read"
	PermissionInputWrite     Permission = "input.write"
	PermissionMatcherWait    Permission = "matcher.wait"
)

// Valid reports whether p is a permission the host knows how to gate.
func (p Permission) Valid() bool {
	return slices.Contains(manifestPermissions, p)
}

var manifestPermissions = []Permission{
	PermissionSessionSpawn,
	PermissionSessionKill,
	PermissionSessionResize,
	PermissionScreenRead,
	PermissionTranscriptRead,
	PermissionInputWrite,
	PermissionMatcherWait,
}

// AllPermissions returns every permission in canonical order. Built-in
// plugins declare all of them; the slice is a fresh copy the caller may keep.
func AllPermissions() []Permission {
	return slices.Clone(manifestPermissions)
}

// Manifest is a plugin's declaration of who it is and what it may do.
// The host uses it for adapter.list, plugin.describe and permission gating,
// so it is validated before any plugin code runs (see Validate).
type Manifest struct {
	// Name is the plugin's stable id and its event namespace.
	Name    string `json:"name" toml:"name"`
	Kind    Kind   `json:"kind" toml:"kind"`
	Version string `json:"version" toml:"version"`
	// Runtime selects the engine; only RuntimeLua is available.
	Runtime Runtime `json:"runtime" toml:"runtime"`
	// Entrypoint is the source file, relative to the manifest's directory.
	Entrypoint string `json:"entrypoint" toml:"entrypoint"`
	// Permissions the plugin requests; calls needing others are denied.
	Permissions []Permission `json:"permissions" toml:"permissions"`
	// DefaultTarget, when set, lets adapter.start callers omit program.
	DefaultTarget *DefaultTarget `json:"default_target,omitempty" toml:"default_target"`
	// Hooks are exported function names callable through plugin.call.
	Hooks []string `json:"hooks,omitempty" toml:"hooks"`
	// Intents are the intent names the plugin declares for adapter.send.
	Intents []string `json:"intents,omitempty" toml:"intents"`
	// Events lists the events the plugin handles and emits.
	Events *Events `json:"events,omitempty" toml:"events"`
}

// DefaultTarget is the program an adapter starts when the caller names only
// the plugin.
type DefaultTarget struct {
	Program string   `json:"program" toml:"program"`
	Args    []string `json:"args,omitempty" toml:"args"`
	// Rows and Cols of the PTY; zero means the host default.
	Rows int `json:"rows,omitempty" toml:"rows"`
	Cols int `json:"cols,omitempty" toml:"cols"`
	// Env is added to the child's environment.
	Env map[string]string `json:"env,omitempty" toml:"env"`
	// RequiredEnv names variables that must be set (non-empty) for the
	// target to start, such as an API key; see MissingEnv.
	RequiredEnv []string `json:"required_env,omitempty" toml:"required_env"`
}

// MissingEnv returns the RequiredEnv names that lookup reports unset or
// empty, in declaration order, so a caller can refuse to start with one
// error listing all of them. An empty value counts as missing because an
// empty credential is never what a plugin asks for. Pass os.LookupEnv, or a
// lookup over the environment the child will really get.
func (t *DefaultTarget) MissingEnv(lookup func(key string) (string, bool)) []string {
	if t == nil {
		return nil
	}
	var missing []string
	for _, name := range t.RequiredEnv {
		if v, ok := lookup(name); !ok || v == "" {
			missing = append(missing, name)
		}
	}
	return missing
}

// Events declares a plugin's event traffic. Emitted events must live
// in the plugin's own namespace ("<name>:<event>") so unrelated plugins
// cannot collide or impersonate the core.
type Events struct {
	Handles []string `json:"handles,omitempty" toml:"handles"`
	Emits   []string `json:"emits,omitempty" toml:"emits"`
}

// HasPermission reports whether the manifest declares p.
func (m *Manifest) HasPermission(p Permission) bool {
	return slices.Contains(m.Permissions, p)
}

// Clone returns a deep copy, so a registry can hand manifests out without
// callers mutating the registered one.
func (m *Manifest) Clone() *Manifest {
	if m == nil {
		return nil
	}
	c := *m
	c.Permissions = slices.Clone(m.Permissions)
	c.Hooks = slices.Clone(m.Hooks)
	c.Intents = slices.Clone(m.Intents)
	if m.DefaultTarget != nil {
		t := *m.DefaultTarget
		t.Args = slices.Clone(t.Args)
		t.Env = maps.Clone(t.Env)
		t.RequiredEnv = slices.Clone(t.RequiredEnv)
		c.DefaultTarget = &t
	}
	if m.Events != nil {
		c.Events = &Events{
			Handles: slices.Clone(m.Events.Handles),
			Emits:   slices.Clone(m.Events.Emits),
		}
	}
	return &c
}

// MarshalJSON writes the wire shape: permissions is always an array (never
// null), and events is omitted when it declares nothing.
func (m Manifest) MarshalJSON() ([]byte, error) {
	type wire Manifest // drops the method, avoiding recursion
	w := wire(m)
	if w.Permissions == nil {
		w.Permissions = []Permission{}
	}
	if w.Events != nil && len(w.Events.Handles) == 0 && len(w.Events.Emits) == 0 {
		w.Events = nil
	}
	return json.Marshal(w)
}

// ErrInvalid matches (with errors.Is) every *Error.
var ErrInvalid = errors.New("ptywright: invalid plugin manifest")

// ErrPathEscape matches entrypoint errors where the path is absolute, has a
// ".." component, or resolves (through symlinks) outside the manifest's
// directory.
var ErrPathEscape = errors.New("ptywright: path escapes the plugin directory")

// Error reports why a manifest was rejected, naming the offending
// field and, when the manifest came from a document, its line.
type Error struct {
	// Path is the manifest file, when it was loaded from disk.
	Path string
	// Field is the offending field in wire form, such as "permissions[2]"
	// or "default_target.rows"; empty when the document as a whole is bad.
	Field string
	// Line is 1-based; 0 when unknown.
	Line int
	// Reason says what is wrong, in words.
	Reason string
	// Err is the underlying cause, if any (ErrPathEscape, fs.ErrNotExist,
	// errors.ErrUnsupported for the wasm runtime).
	Err error
}

// Error reads like
// `manifest: field "permissions[2]": unknown permission "net.http" (line 7)`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("manifest")
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Reason)
	if e.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", e.Line)
	}
	return b.String()
}

// Is makes every Error match ErrInvalid.
func (e *Error) Is(target error) bool {
	return target == ErrInvalid
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error {
	return e.Err
}

// FieldError builds an *Error for field with a formatted reason.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Field: field, Reason: fmt.Sprintf(format, args...)}
}
