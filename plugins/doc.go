// Package plugins is the registry of Lua plugins a host can run: the
// built-in plugins embedded from this directory (claude-code, codex,
// gemini-cli; see README.md) and trusted-local third-party plugins loaded
// from manifests on disk.
//
// # Registry
//
// New returns a Registry holding the built-ins (unless Options.NoBuiltins).
// Load registers a plugin from its manifest.toml (see package
// ptywright/manifest for the format and its checks); Unload removes one;
// Manifests, Builtins and Capabilities describe what is there.
//
// # Instances
//
// NewExtension starts a fresh luahost.Extension of a plugin, with its
// own Lua state: each adapter gets one (drive it with
// ptywright.NewExtensionHandle) and closes it. The registry keeps
// instances of its own, one per plugin and purpose: one decides lua
// matchers (the Registry is a contract.PredicateRegistry) and answers
// Describe, another serves hook calls (Call), so predicates never see
// state an adapter's classifier or intents set and a long hook never holds
// up a matcher. CallInline runs a one-shot script.
//
// # Events
//
// Every instance the registry creates emits to, and handles events from,
// one events.Bus: Options.Events, or the registry's own (Events).
package plugins
