package ptywright

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"
	"sync"

	"ptywright/manifest"

	"ptywright/internal/luart"
)

// builtinPlugins holds plugins/<name>/{manifest.toml,*.lua}; see
// plugins/README.md.
//
//go:embed plugins/*/manifest.toml plugins/*/*.lua
var builtinPlugins embed.FS

// Errors of the plugin registry.
var (
	// ErrPluginNotFound: no plugin of that name is registered.
	ErrPluginNotFound = errors.New("ptywright: plugin not found")
	// ErrPluginExists: a plugin of that name is already registered.
	ErrPluginExists = errors.New("ptywright: plugin already registered")
	// ErrBuiltinPlugin: built-in plugins cannot be unloaded or shadowed.
	ErrBuiltinPlugin = errors.New("ptywright: built-in plugin")
)

// PluginsOptions tune a Plugins registry.
type PluginsOptions struct {
	// Limits bound every call into every plugin instance the registry
	// creates (adapters' and its own); the zero value means the defaults.
	Limits PluginLimits
	// NoBuiltins leaves out the plugins embedded in this package.
	NoBuiltins bool
	// Events carries what every instance the registry creates emits, and
	// the events their handlers receive; nil means a bus of the
	// registry's own (see Events).
	Events *EventBus
	// Logger receives the plugins' ptywright.log records and their
	// handler and cleanup failures; nil means slog.Default().
	Logger *slog.Logger
}

// Plugins is the registry of plugins a host can run: built-ins embedded in
// the binary and trusted-local third-party plugins loaded from manifests
// on disk. It hands out a fresh Lua instance per adapter (NewExtension) and
// decides lua matchers (it is a PredicateRegistry) with instances of its
// own, one per plugin, so predicates never see state an adapter's
// classifier or intents set. It is safe for concurrent use.
type Plugins struct {
	opts PluginsOptions
	bus  *EventBus

	mu   sync.RWMutex
	defs map[string]*pluginDef
}

// pluginDef is one registered plugin and the registry's own instance of
// it, created on first use.
type pluginDef struct {
	manifest manifest.Manifest
	source   []byte
	builtin  bool
	path     string // manifest file of a loaded plugin

	mu       sync.Mutex
	instance *LuaExtension // predicates and describe
	// hookInstance serves plugin.call, so a long hook never holds up a
	// lua matcher.
	hookInstance *LuaExtension
	removed      bool
}

// NewPlugins returns a registry holding the built-in plugins (unless
// opts.NoBuiltins). It fails only if a built-in is broken.
func NewPlugins(opts PluginsOptions) (*Plugins, error) {
	bus := opts.Events
	if bus == nil {
		bus = NewEventBus(opts.Logger)
	}
	p := &Plugins{opts: opts, bus: bus, defs: map[string]*pluginDef{}}
	if !opts.NoBuiltins {
		if _, err := p.RegisterBuiltinFS(builtinPlugins, "plugins"); err != nil {
			return nil, fmt.Errorf("built-in plugins: %w", err)
		}
	}
	return p, nil
}

// RegisterBuiltinFS registers, as built-ins, the plugins in the
// directories directly under root in fsys (typically an embed.FS): each
// directory holding a manifest.toml, with the entrypoint relative to that
// directory. Other directories and files are ignored. It returns the
// manifests registered, in name order.
func (p *Plugins) RegisterBuiltinFS(fsys fs.FS, root string) ([]manifest.Manifest, error) {
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, err
	}
	var out []manifest.Manifest
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := path.Join(root, e.Name())
		data, err := fs.ReadFile(fsys, path.Join(dir, "manifest.toml"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		m, err := manifest.ParseTOML(data)
		if err != nil {
			return out, manifest.WithPath(err, path.Join(dir, "manifest.toml"))
		}
		if err := manifest.CheckEntrypoint(m.Entrypoint); err != nil {
			return out, manifest.WithPath(err, path.Join(dir, "manifest.toml"))
		}
		entry := path.Join(dir, m.Entrypoint)
		if !strings.HasPrefix(entry, dir+"/") || !fs.ValidPath(entry) {
			return out, &manifest.Error{Path: path.Join(dir, "manifest.toml"), Field: "entrypoint", Reason: fmt.Sprintf("entrypoint %q leaves %s", m.Entrypoint, dir), Err: manifest.ErrPathEscape}
		}
		source, err := fs.ReadFile(fsys, entry)
		if err != nil {
			return out, &manifest.Error{Path: path.Join(dir, "manifest.toml"), Field: "entrypoint", Reason: err.Error(), Err: err}
		}
		if err := p.register(*m, source, true, ""); err != nil {
			return out, err
		}
		out = append(out, *m.Clone())
	}
	return out, nil
}

// RegisterBuiltin registers one built-in plugin from its manifest and
// entrypoint source.
func (p *Plugins) RegisterBuiltin(m manifest.Manifest, source []byte) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return p.register(m, source, true, "")
}

// Load registers a trusted-local third-party plugin from a manifest file
// (.toml or .json), as --plugin and plugin.load do. The entrypoint must
// stay inside the manifest's directory (see manifest.LoadFile) and must
// load: a syntax error or a chunk that does not return a module table is
// reported here, not at first use. A name already registered is
// ErrPluginExists (joined with ErrBuiltinPlugin for a built-in).
func (p *Plugins) Load(manifestPath string) (manifest.Manifest, error) {
	lm, err := manifest.LoadFile(manifestPath)
	if err != nil {
		return manifest.Manifest{}, err
	}
	if err := p.checkFree(lm.Manifest.Name); err != nil {
		return manifest.Manifest{}, err
	}
	source, err := lm.ReadSource()
	if err != nil {
		return manifest.Manifest{}, err
	}
	if err := p.register(lm.Manifest, source, false, lm.Path); err != nil {
		return manifest.Manifest{}, err
	}
	return *lm.Manifest.Clone(), nil
}

func (p *Plugins) checkFree(name string) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.checkFreeLocked(name)
}

func (p *Plugins) checkFreeLocked(name string) error {
	def, ok := p.defs[name]
	switch {
	case !ok:
		return nil
	case def.builtin:
		return fmt.Errorf("%w: %q is a built-in plugin: %w", ErrPluginExists, name, ErrBuiltinPlugin)
	default:
		return fmt.Errorf("%w: %q (loaded from %s)", ErrPluginExists, name, def.path)
	}
}

// register checks that the source loads, then adds the plugin.
func (p *Plugins) register(m manifest.Manifest, source []byte, builtin bool, from string) error {
	if m.Runtime != manifest.RuntimeLua {
		return manifest.FieldError("runtime", "runtime %q cannot run in the Lua host", m.Runtime)
	}
	if err := p.checkFree(m.Name); err != nil {
		return err
	}
	probe, err := NewLuaExtension(m, source, p.luaOptions())
	if err != nil {
		return err
	}
	if err := probe.checkDeclared(); err != nil {
		_ = probe.Close() // Best effort: never used.
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.checkFreeLocked(m.Name); err != nil {
		_ = probe.Close() // Best effort: never used.
		return err
	}
	// The probe becomes the registry's own instance.
	p.defs[m.Name] = &pluginDef{manifest: *m.Clone(), source: slices.Clone(source), builtin: builtin, path: from, instance: probe}
	return nil
}

// Unload removes a loaded plugin; built-ins cannot be unloaded
// (ErrBuiltinPlugin). Extensions already created from it keep running; a
// host that must refuse while adapters use the plugin tracks them itself.
func (p *Plugins) Unload(name string) error {
	p.mu.Lock()
	def, ok := p.defs[name]
	switch {
	case !ok:
		p.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrPluginNotFound, name)
	case def.builtin:
		p.mu.Unlock()
		return fmt.Errorf("%w: %q cannot be unloaded", ErrBuiltinPlugin, name)
	}
	delete(p.defs, name)
	p.mu.Unlock()
	def.close(true)
	return nil
}

// close closes the registry's own instances of the plugin (running their
// cleanups); removed marks the plugin unloaded, so no instance is made
// again.
func (def *pluginDef) close(removed bool) {
	def.mu.Lock()
	defer def.mu.Unlock()
	if removed {
		def.removed = true
	}
	for _, inst := range []**LuaExtension{&def.instance, &def.hookInstance} {
		if *inst != nil {
			_ = (*inst).Close() // Never fails: plugin failures are logged.
			*inst = nil
		}
	}
}

func (p *Plugins) lookup(name string) (*pluginDef, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	def, ok := p.defs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrPluginNotFound, name)
	}
	return def, nil
}

// Manifest returns the manifest of the named plugin.
func (p *Plugins) Manifest(name string) (manifest.Manifest, error) {
	def, err := p.lookup(name)
	if err != nil {
		return manifest.Manifest{}, err
	}
	return *def.manifest.Clone(), nil
}

// Manifests returns every registered manifest, sorted by name.
func (p *Plugins) Manifests() []manifest.Manifest {
	return p.manifests(func(*pluginDef) bool { return true })
}

// Builtins returns the built-in manifests, sorted by name.
func (p *Plugins) Builtins() []manifest.Manifest {
	return p.manifests(func(d *pluginDef) bool { return d.builtin })
}

func (p *Plugins) manifests(keep func(*pluginDef) bool) []manifest.Manifest {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := []manifest.Manifest{}
	for _, name := range luart.SortedNames(p.defs) {
		if def := p.defs[name]; keep(def) {
			out = append(out, *def.manifest.Clone())
		}
	}
	return out
}

// IsBuiltin reports whether name is a registered built-in plugin.
func (p *Plugins) IsBuiltin(name string) bool {
	def, err := p.lookup(name)
	return err == nil && def.builtin
}

// NewExtension starts a fresh instance of the named plugin, with its own
// Lua state: each adapter gets one, and closes it.
func (p *Plugins) NewExtension(name string) (Extension, error) {
	def, err := p.lookup(name)
	if err != nil {
		return nil, err
	}
	return NewLuaExtension(def.manifest, def.source, p.luaOptions())
}

// Events returns the bus the registry's plugin instances emit to and
// handle events from: PluginsOptions.Events, or the registry's own.
func (p *Plugins) Events() *EventBus { return p.bus }

func (p *Plugins) luaOptions() LuaOptions {
	return LuaOptions{Limits: p.opts.Limits, Events: p.bus, Logger: p.opts.Logger}
}

// Describe returns the named plugin's catalogue of intents, wait matchers
// and states (plugin.describe), using the registry's own instance.
func (p *Plugins) Describe(ctx context.Context, name string) (PluginDescription, error) {
	ext, err := p.instance(name)
	if err != nil {
		return PluginDescription{}, err
	}
	return ext.Describe(ctx)
}

// EvalPredicate decides a lua matcher by calling the predicate the plugin
// exports, on the registry's own instance of the plugin: one per plugin,
// created on first use and serialised, separate from every adapter's.
func (p *Plugins) EvalPredicate(ctx context.Context, plugin, predicate string, in PredicateInput) (PredicateOutcome, error) {
	ext, err := p.instance(plugin)
	if err != nil {
		return PredicateOutcome{}, err
	}
	return ext.evalPredicate(ctx, predicate, in)
}

var _ PredicateRegistry = (*Plugins)(nil)

func (p *Plugins) instance(name string) (*LuaExtension, error) {
	def, err := p.lookup(name)
	if err != nil {
		return nil, err
	}
	return p.defInstance(def, &def.instance)
}

// defInstance returns *slot, one of def's own instances, creating it on
// first use.
func (p *Plugins) defInstance(def *pluginDef, slot **LuaExtension) (*LuaExtension, error) {
	return def.slot(slot, p.luaOptions())
}

// slot returns *slot, one of def's own instances, creating it with opts
// on first use.
func (def *pluginDef) slot(slot **LuaExtension, opts LuaOptions) (*LuaExtension, error) {
	def.mu.Lock()
	defer def.mu.Unlock()
	if def.removed {
		return nil, fmt.Errorf("%w: %q", ErrPluginNotFound, def.manifest.Name)
	}
	if *slot == nil {
		ext, err := NewLuaExtension(def.manifest, def.source, opts)
		if err != nil {
			return nil, err
		}
		*slot = ext
	}
	return *slot, nil
}

// Close releases the registry's own plugin instances (those deciding lua
// matchers and serving hook calls), running their cleanups and close()
// exports. Extensions handed out by NewExtension belong to their callers.
// The registry stays usable: an instance is created again on next use.
func (p *Plugins) Close() error {
	p.mu.RLock()
	defs := make([]*pluginDef, 0, len(p.defs))
	for _, def := range p.defs {
		defs = append(defs, def)
	}
	p.mu.RUnlock()
	for _, def := range defs {
		def.close(false)
	}
	return nil
}

// PluginCapabilities is plugin.capabilities' result.
type PluginCapabilities struct {
	EmbeddedLua    bool                  `json:"embedded_lua"`
	Runtimes       []manifest.Runtime    `json:"runtimes"`
	Kinds          []manifest.Kind       `json:"kinds"`
	Permissions    []manifest.Permission `json:"permissions"`
	BuiltinPlugins []manifest.Manifest   `json:"builtin_plugins"`
	Limits         PluginLimitsInfo      `json:"limits"`
}

// PluginLimitsInfo reports the budgets every plugin call runs under.
type PluginLimitsInfo struct {
	Instructions   int64 `json:"instructions"`
	TimeoutMs      int64 `json:"timeout_ms"`
	MaxStringBytes int   `json:"max_string_bytes"`
	// MemoryBytes is each plugin instance's memory budget.
	MemoryBytes int64 `json:"memory_bytes"`
}

// Capabilities reports what this host can run: the Lua runtime, the kinds
// and permissions manifests may use, the built-in manifests and the call
// budgets.
func (p *Plugins) Capabilities() PluginCapabilities {
	lim := p.opts.Limits.WithDefaults()
	return PluginCapabilities{
		EmbeddedLua:    true,
		Runtimes:       []manifest.Runtime{manifest.RuntimeLua},
		Kinds:          manifest.Kinds(),
		Permissions:    manifest.AllPermissions(),
		BuiltinPlugins: p.Builtins(),
		Limits: PluginLimitsInfo{
			Instructions:   lim.Instructions,
			TimeoutMs:      lim.Timeout.Milliseconds(),
			MaxStringBytes: MaxPluginStringBytes,
			MemoryBytes:    lim.Memory,
		},
	}
}
