// Package manifest reads and checks plugin manifests: the manifest.toml (or
// JSON) that says who a plugin is and what it may do, before any of its code
// runs.
//
// # Types
//
// A [Manifest] names the plugin ([Kind], [Runtime], entrypoint), the
// [Permission]s it requests, an optional [DefaultTarget] program, its hooks,
// intents and [Events]. Validate checks every field; problems come back as an
// [*Error] naming the field, and the file and line when known, wrapping
// [ErrInvalid] (or [ErrPathEscape] for an entrypoint that leaves the plugin
// directory).
//
// # Decoding and loading
//
// [ParseTOML] and [ParseJSON] decode strictly (unknown fields and wrong types
// are errors with a line number) and validate. [LoadFile] reads a manifest
// from disk and resolves its entrypoint safely ([ResolveEntrypoint]); the
// [Loaded] result reads the plugin source with the same checks.
//
// It imports nothing else of ptywright but package events (itself a leaf),
// whose grammar of event names (and so of plugin names, their namespaces)
// it checks declared events against, so tools can check manifests without
// the Lua host.
package manifest
