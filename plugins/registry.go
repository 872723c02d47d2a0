package plugins

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
	"ptywright/luahost"
	"ptywright/manifest"
)

// builtinPlugins holds <name>/{manifest.toml,*.lua} of this directory; see
// README.md.
//
//go:embed */manifest.toml */*.lua
var builtinPlugins embed.FS

// Errors of the plugin registry.
var (
	// ErrNotFound: no plugin of that name is registered.
	ErrNotFound = errors.New("ptywright: plugin not found")
	// ErrExists: a plugin of that name is already registered.
	ErrExists = errors.New("ptywright: plugin already registered")
	// ErrBuiltin: built-in plugins cannot be unloaded or shadowed.
	ErrBuiltin = errors.New("ptywright: built-in plugin")
)

// Options tune a Registry registry.
type Options struct {
	// Limits bound every call into every plugin instance the registry
	// creates (adapters' and its own); the zero value means the defaults.
	Limits luahost.Limits
	// NoBuiltins leaves out the plugins embedded in this package.
	NoBuiltins bool
	// Events carries what every instance the registry creates emits, and
	// the events their handlers receive; nil means a bus of the
	// registry's own (see Events).
	Events *events.Bus
	// Logger receives the plugins' ptywright.log records and their
	// handler and cleanup failures; nil means slog.Default().
	Logger *slog.Logger
}

// Registry is the registry of plugins a host can run: built-ins embedded in
// the binary and trusted-local third-party plugins loaded from manifests
// on disk. It hands out a fresh Lua instance per adapter (NewExtension) and
// decides lua matchers (it is a contract.PredicateRegistry) with instances of its
// own, one per plugin, so predicates never see state an adapter's
// classifier or intents set. It is safe for concurrent use.
type Registry struct {
	opts Options
	bus  *events.Bus

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
	instance *luahost.Extension // predicates and describe
	// hookInstance serves plugin.call, so a long hook never holds up a
	// lua matcher.
	hookInstance *luahost.Extension
	removed      bool
}

// New returns a registry holding the built-in plugins (unless
// opts.NoBuiltins). It fails only if a built-in is broken.
func New(opts Options) (*Registry, error) {
	bus := opts.Events
	if bus == nil {
		bus = events.New(opts.Logger)
	}
	p := &Registry{opts: opts, bus: bus, defs: map[string]*pluginDef{}}
	if !opts.NoBuiltins {
		if _, err := p.RegisterBuiltinFS(builtinPlugins, "."); err != nil {
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
func (p *Registry) RegisterBuiltinFS(fsys fs.FS, root string) ([]manifest.Manifest, error) {
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
func (p *Registry) RegisterBuiltin(m manifest.Manifest, source []byte) error {
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
// ErrExists (joined with ErrBuiltin for a built-in).
func (p *Registry) Load(manifestPath string) (manifest.Manifest, error) {
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

func (p *Registry) checkFree(name string) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.checkFreeLocked(name)
}

func (p *Registry) checkFreeLocked(name string) error {
	def, ok := p.defs[name]
	switch {
	case !ok:
		return nil
	case def.builtin:
		return fmt.Errorf("%w: %q is a built-in plugin: %w", ErrExists, name, ErrBuiltin)
	default:
		return fmt.Errorf("%w: %q (loaded from %s)", ErrExists, name, def.path)
	}
}

// register checks that the source loads, then adds the plugin.
func (p *Registry) register(m manifest.Manifest, source []byte, builtin bool, from string) error {
	if m.Runtime != manifest.RuntimeLua {
		return manifest.FieldError("runtime", "runtime %q cannot run in the Lua host", m.Runtime)
	}
	if err := p.checkFree(m.Name); err != nil {
		return err
	}
	probe, err := luahost.New(m, source, p.luaOptions())
	if err != nil {
		return err
	}
	if err := probe.CheckDeclared(); err != nil {
		_ = probe.Close() // Best effort: never used.
		return err
	}
	p.mu.Lock()
	err = p.checkFreeLocked(m.Name)
	if err == nil {
		// The probe becomes the registry's own instance.
		p.defs[m.Name] = &pluginDef{manifest: *m.Clone(), source: slices.Clone(source), builtin: builtin, path: from, instance: probe}
	}
	p.mu.Unlock()
	if err != nil {
		_ = probe.Close() // Best effort: never used; closed outside the lock.
		return err
	}
	return nil
}

// Unload removes a loaded plugin; built-ins cannot be unloaded
// (ErrBuiltin). Extensions already created from it keep running; a
// host that must refuse while adapters use the plugin tracks them itself.
func (p *Registry) Unload(name string) error {
	p.mu.Lock()
	def, ok := p.defs[name]
	switch {
	case !ok:
		p.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrNotFound, name)
	case def.builtin:
		p.mu.Unlock()
		return fmt.Errorf("%w: %q cannot be unloaded", ErrBuiltin, name)
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
	for _, inst := range []**luahost.Extension{&def.instance, &def.hookInstance} {
		if *inst != nil {
			_ = (*inst).Close() // Never fails: plugin failures are logged.
			*inst = nil
		}
	}
}

func (p *Registry) lookup(name string) (*pluginDef, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	def, ok := p.defs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return def, nil
}

// Manifest returns the manifest of the named plugin.
func (p *Registry) Manifest(name string) (manifest.Manifest, error) {
	def, err := p.lookup(name)
	if err != nil {
		return manifest.Manifest{}, err
	}
	return *def.manifest.Clone(), nil
}

// Manifests returns every registered manifest, sorted by name.
func (p *Registry) Manifests() []manifest.Manifest {
	return p.manifests(func(*pluginDef) bool { return true })
}

// Builtins returns the built-in manifests, sorted by name.
func (p *Registry) Builtins() []manifest.Manifest {
	return p.manifests(func(d *pluginDef) bool { return d.builtin })
}

func (p *Registry) manifests(keep func(*pluginDef) bool) []manifest.Manifest {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := []manifest.Manifest{}
	for _, name := range slices.Sorted(maps.Keys(p.defs)) {
		if def := p.defs[name]; keep(def) {
			out = append(out, *def.manifest.Clone())
		}
	}
	return out
}

// IsBuiltin reports whether name is a registered built-in plugin.
func (p *Registry) IsBuiltin(name string) bool {
	def, err := p.lookup(name)
	return err == nil && def.builtin
}

// NewExtension starts a fresh instance of the named plugin, with its own
// Lua state: each adapter gets one, and closes it.
func (p *Registry) NewExtension(name string) (ptywright.Extension, error) {
	def, err := p.lookup(name)
	if err != nil {
		return nil, err
	}
	return luahost.New(def.manifest, def.source, p.luaOptions())
}

// Events returns the bus the registry's plugin instances emit to and
// handle events from: Options.Events, or the registry's own.
func (p *Registry) Events() *events.Bus { return p.bus }

func (p *Registry) luaOptions() luahost.Options {
	return luahost.Options{Limits: p.opts.Limits, Events: p.bus, Logger: p.opts.Logger}
}

// Describe returns the named plugin's catalogue of intents, wait matchers
// and states (plugin.describe), using the registry's own instance.
func (p *Registry) Describe(ctx context.Context, name string) (luahost.Description, error) {
	ext, err := p.instance(name)
	if err != nil {
		return luahost.Description{}, err
	}
	return ext.Describe(ctx)
}

// EvalPredicate decides a lua matcher by calling the predicate the plugin
// exports, on the registry's own instance of the plugin: one per plugin,
// created on first use and serialised, separate from every adapter's.
func (p *Registry) EvalPredicate(ctx context.Context, plugin, predicate string, in contract.PredicateInput) (contract.PredicateOutcome, error) {
	ext, err := p.instance(plugin)
	if err != nil {
		return contract.PredicateOutcome{}, err
	}
	return ext.EvalPredicate(ctx, predicate, in)
}

var _ contract.PredicateRegistry = (*Registry)(nil)

func (p *Registry) instance(name string) (*luahost.Extension, error) {
	def, err := p.lookup(name)
	if err != nil {
		return nil, err
	}
	return p.defInstance(def, &def.instance)
}

// defInstance returns *slot, one of def's own instances, creating it on
// first use.
func (p *Registry) defInstance(def *pluginDef, slot **luahost.Extension) (*luahost.Extension, error) {
	return def.slot(slot, p.luaOptions())
}

// slot returns *slot, one of def's own instances, creating it with opts
// on first use.
func (def *pluginDef) slot(slot **luahost.Extension, opts luahost.Options) (*luahost.Extension, error) {
	def.mu.Lock()
	defer def.mu.Unlock()
	if def.removed {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, def.manifest.Name)
	}
	if *slot == nil {
		ext, err := luahost.New(def.manifest, def.source, opts)
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
func (p *Registry) Close() error {
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

// Capabilities is plugin.capabilities' result.
type Capabilities struct {
	EmbeddedLua    bool                  `json:"embedded_lua"`
	Runtimes       []manifest.Runtime    `json:"runtimes"`
	Kinds          []manifest.Kind       `json:"kinds"`
	Permissions    []manifest.Permission `json:"permissions"`
	BuiltinPlugins []manifest.Manifest   `json:"builtin_plugins"`
	Limits         LimitsInfo            `json:"limits"`
}

// LimitsInfo reports the budgets every plugin call runs under.
type LimitsInfo struct {
	Instructions   int64 `json:"instructions"`
	TimeoutMs      int64 `json:"timeout_ms"`
	MaxStringBytes int   `json:"max_string_bytes"`
	// MemoryBytes is each plugin instance's memory budget.
	MemoryBytes int64 `json:"memory_bytes"`
}

// Capabilities reports what this host can run: the Lua runtime, the kinds
// and permissions manifests may use, the built-in manifests and the call
// budgets.
func (p *Registry) Capabilities() Capabilities {
	lim := p.opts.Limits.WithDefaults()
	return Capabilities{
		EmbeddedLua:    true,
		Runtimes:       []manifest.Runtime{manifest.RuntimeLua},
		Kinds:          manifest.Kinds(),
		Permissions:    manifest.AllPermissions(),
		BuiltinPlugins: p.Builtins(),
		Limits: LimitsInfo{
			Instructions:   lim.Instructions,
			TimeoutMs:      lim.Timeout.Milliseconds(),
			MaxStringBytes: luahost.MaxStringBytes,
			MemoryBytes:    lim.Memory,
		},
	}
}

// Call calls hook on the named plugin (plugin.call), on an instance the
// registry keeps for hook calls: one per plugin, created on first use, so
// module-level state persists between calls, separate from every adapter's
// instance and from the one deciding lua matchers. See
// luahost.Extension.CallHook.
func (p *Registry) Call(ctx context.Context, plugin, hook string, args json.RawMessage, opts luahost.HookOptions) (luahost.HookResult, error) {
	def, err := p.lookup(plugin)
	if err != nil {
		return luahost.HookResult{}, err
	}
	ext, err := p.defInstance(def, &def.hookInstance)
	if err != nil {
		return luahost.HookResult{}, err
	}
	return ext.CallHook(ctx, hook, args, opts)
}

// CallInline loads source as a one-shot script named luahost.InlinePluginName,
// calls hook with args and closes the script (running its cleanups). The
// script is a module like a plugin's entrypoint, or just defines global
// functions; it runs with no permissions beyond pure Lua: the sandbox's
// libraries, print, Ok and Err, and the ptywright table's json and re
// helpers, without actions, matchers, emit, on, on_cleanup or log. The
// load runs under the registry's luahost.Limits, the hook under opts. Only
// trusted callers should reach it (the JSON-RPC server requires
// --allow-plugin-load).
func (p *Registry) CallInline(ctx context.Context, source, hook string, args json.RawMessage, opts luahost.HookOptions) (luahost.HookResult, error) {
	return luahost.CallInline(ctx, source, hook, args, luahost.Options{Limits: p.opts.Limits, Logger: p.opts.Logger}, opts)
}
