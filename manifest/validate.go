package manifest

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"ptywright/events"
)

// maxManifestNameLen bounds plugin names, which travel as ids and event
// namespaces.
const maxManifestNameLen = 64

// maxManifestPTYDim is the largest row or column count a PTY window size can carry.
const maxManifestPTYDim = 65535

// Validate checks everything about the manifest that does not need the
// filesystem, and returns the first problem as a *Error (Line is 0:
// the Parse functions fill it in). Checks run in field order, so a manifest
// with several problems always reports the same one:
//
//   - name: 1-64 bytes of lowercase letters, digits, '-' and '_', starting
//     with a letter or digit, and not a core namespace ("session",
//     "adapter"), because it doubles as the plugin's id and event namespace;
//   - kind: one of the Kind values; version: not blank;
//   - runtime: a known runtime whose extension the entrypoint has (".lua",
//     ".wasm"); wasm is then refused as not available in this build;
//   - entrypoint: relative, without ".." (ErrPathEscape);
//   - permissions: known, none twice;
//   - default_target: a program, rows and cols in 0..65535, valid and
//     unique environment variable names;
//   - hooks and intents: Lua identifiers, unique across both lists; no
//     intent named classify, describe, project, close or *_matcher (the
//     host calls those itself), no hook named close;
//   - events: "<namespace>:<event>" names, unique; emits only in the
//     plugin's own namespace and never in a core one.
//
// ResolveEntrypoint does the filesystem checks.
func (m *Manifest) Validate() error {
	if err := validatePluginName(m.Name); err != nil {
		return err
	}
	if !m.Kind.Valid() {
		if m.Kind == "" {
			return FieldError("kind", "kind is required (one of %s)", manifestQuoteList(manifestKinds))
		}
		return FieldError("kind", "unknown kind %q (want one of %s)", m.Kind, manifestQuoteList(manifestKinds))
	}
	if strings.TrimSpace(m.Version) == "" {
		return FieldError("version", "version is required")
	}
	if err := m.validateRuntime(); err != nil {
		return err
	}
	for i, p := range m.Permissions {
		field := fmt.Sprintf("permissions[%d]", i)
		if !p.Valid() {
			return FieldError(field, "unknown permission %q", p)
		}
		for j := range i {
			if m.Permissions[j] == p {
				return FieldError(field, "permission %q is declared twice (also permissions[%d])", p, j)
			}
		}
	}
	if err := m.DefaultTarget.validate(); err != nil {
		return err
	}
	if err := m.validateCallables(); err != nil {
		return err
	}
	return m.validateEvents()
}

func validatePluginName(name string) error {
	switch {
	case name == "":
		return FieldError("name", "name is required")
	case len(name) > maxManifestNameLen:
		return FieldError("name", "name is longer than %d bytes", maxManifestNameLen)
	case !events.IsIdent(name):
		return FieldError("name", "name %q must start with a lowercase letter or digit and contain only lowercase letters, digits, '-' and '_'", name)
	}
	if events.IsHostNamespace(name) {
		return FieldError("name", "name %q is reserved for a core event namespace", name)
	}
	return nil
}

// validateRuntime checks the runtime and the entrypoint together: the
// entrypoint's extension must match the runtime, and its path must stay
// inside the plugin directory. The wasm runtime is rejected last so a
// well-formed wasm manifest gets the clearest error.
func (m *Manifest) validateRuntime() error {
	if !m.Runtime.Valid() {
		if m.Runtime == "" {
			return FieldError("runtime", "runtime is required (%q)", RuntimeLua)
		}
		return FieldError("runtime", "unknown runtime %q (want %q)", m.Runtime, RuntimeLua)
	}
	if strings.TrimSpace(m.Entrypoint) == "" {
		return FieldError("entrypoint", "entrypoint is required")
	}
	if err := CheckEntrypoint(m.Entrypoint); err != nil {
		return err
	}
	if ext := m.Runtime.entrypointExt(); !strings.HasSuffix(m.Entrypoint, ext) {
		return FieldError("entrypoint", "the %s runtime needs a %s entrypoint, got %q", m.Runtime, ext, m.Entrypoint)
	}
	if m.Runtime == RuntimeWASM {
		return &Error{Field: "runtime", Reason: "the wasm runtime is not available in this build", Err: errors.ErrUnsupported}
	}
	return nil
}

// CheckEntrypoint rejects entrypoints that could name a file outside the
// plugin directory without looking at the filesystem.
func CheckEntrypoint(p string) error {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q must be relative to the manifest directory", p), Err: ErrPathEscape}
	}
	for part := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if part == ".." {
			return &Error{Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q must not contain \"..\"", p), Err: ErrPathEscape}
		}
	}
	return nil
}

func (t *DefaultTarget) validate() error {
	if t == nil {
		return nil
	}
	if strings.TrimSpace(t.Program) == "" {
		return FieldError("default_target.program", "program is required when default_target is set")
	}
	if t.Rows < 0 || t.Rows > maxManifestPTYDim {
		return FieldError("default_target.rows", "rows %d is out of range 0..%d", t.Rows, maxManifestPTYDim)
	}
	if t.Cols < 0 || t.Cols > maxManifestPTYDim {
		return FieldError("default_target.cols", "cols %d is out of range 0..%d", t.Cols, maxManifestPTYDim)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Env)) {
		if !isManifestEnvName(k) {
			return FieldError("default_target.env."+k, "invalid environment variable name %q", k)
		}
	}
	for i, name := range t.RequiredEnv {
		field := fmt.Sprintf("default_target.required_env[%d]", i)
		if !isManifestEnvName(name) {
			return FieldError(field, "invalid environment variable name %q", name)
		}
		for j := range i {
			if t.RequiredEnv[j] == name {
				return FieldError(field, "%q is declared twice (also default_target.required_env[%d])", name, j)
			}
		}
	}
	return nil
}

// validateCallables checks hooks and intents, which share one namespace:
// both name exported Lua functions.
func (m *Manifest) validateCallables() error {
	seen := make(map[string]string) // name -> field that declared it
	check := func(list, kind string, names []string) error {
		for i, name := range names {
			field := fmt.Sprintf("%s[%d]", list, i)
			if !IsHookName(name) {
				return FieldError(field, "%s name %q must be a Lua identifier (letters, digits, '_', not starting with a digit)", kind, name)
			}
			if why := ReservedCallable(kind, name); why != "" {
				return FieldError(field, "%s name %q is reserved: %s", kind, name, why)
			}
			if prev, dup := seen[name]; dup {
				return FieldError(field, "%q is declared twice (also %s)", name, prev)
			}
			seen[name] = field
		}
		return nil
	}
	if err := check("hooks", "hook", m.Hooks); err != nil {
		return err
	}
	return check("intents", "intent", m.Intents)
}

// reservedIntentNames are exports the host calls itself, never as an
// intent: the classifier, the catalogue, the projector and the shutdown
// hook (close, the one lifecycle hook; cleanups are registered with
// ptywright.on_cleanup, not exported).
var reservedIntentNames = map[string]string{
	"classify": "the host calls it to classify the screen",
	"describe": "the host calls it for the plugin's catalogue",
	"project":  "the host calls it for the dialog projection",
	"close":    "it is the plugin's shutdown hook, run only when the instance closes",
}

// ReservedCallable says why name cannot be declared as a kind ("hook" or
// "intent"), or "". Intents exclude the host's own exports and the wait
// matchers (*_matcher); hooks exclude only close, which plugin.call
// refuses to run.
func ReservedCallable(kind, name string) string {
	if kind == "hook" {
		if name == "close" {
			return reservedIntentNames[name]
		}
		return ""
	}
	if why, ok := reservedIntentNames[name]; ok {
		return why
	}
	if strings.HasSuffix(name, "_matcher") {
		return "names ending in _matcher are wait matchers, not intents"
	}
	return ""
}

func (m *Manifest) validateEvents() error {
	if m.Events == nil {
		return nil
	}
	seen := make(map[string]int)
	for i, ev := range m.Events.Handles {
		field := fmt.Sprintf("events.handles[%d]", i)
		if _, _, ok := events.SplitName(ev); !ok {
			return FieldError(field, "event %q must be \"<namespace>:<event>\" in lowercase letters, digits, '-' and '_'", ev)
		}
		if j, dup := seen[ev]; dup {
			return FieldError(field, "event %q is declared twice (also events.handles[%d])", ev, j)
		}
		seen[ev] = i
	}
	clear(seen)
	for i, ev := range m.Events.Emits {
		field := fmt.Sprintf("events.emits[%d]", i)
		ns, _, ok := events.SplitName(ev)
		if !ok {
			return FieldError(field, "event %q must be \"%s:<event>\" in lowercase letters, digits, '-' and '_'", ev, m.Name)
		}
		if events.IsHostNamespace(ns) {
			return FieldError(field, "event %q uses the core namespace %q, which plugins may not emit", ev, ns)
		}
		if ns != m.Name {
			return FieldError(field, "event %q is outside the plugin's namespace %q", ev, m.Name+":")
		}
		if j, dup := seen[ev]; dup {
			return FieldError(field, "event %q is declared twice (also events.emits[%d])", ev, j)
		}
		seen[ev] = i
	}
	return nil
}

// IsHookName reports whether s is a Lua name: ASCII letters, digits and
// '_', not starting with a digit.
func IsHookName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// isManifestEnvName accepts what execve can pass: non-empty, no '=' and no NUL.
func isManifestEnvName(s string) bool {
	return s != "" && !strings.ContainsAny(s, "=\x00")
}

func manifestQuoteList[S ~string](vals []S) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
