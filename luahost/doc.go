// Package luahost runs ptywright extensions written in Lua: the Lua host's
// public face.
//
// [New] loads a plugin's entrypoint into a fresh sandboxed Lua state and
// returns an [Extension], a ptywright.Extension that classifies screens,
// plans intents and builds wait matchers by calling the plugin's exported
// functions; an ExtensionHandle drives a session with it. Every call is
// bounded by [Limits] (instructions, wall clock, memory); a failed call is
// an *[Error] of class [ErrRuntime] or [ErrBudget] ([ErrMemory] for the
// memory budget). Plugins may also export hooks, called by name with JSON
// arguments ([Extension.CallHook], [CallInline] for one-shot scripts), and
// use the runtime SDK: events on an events.Bus, handlers, loggers
// and cleanups.
//
// The sandbox itself (the go-lua state, its libraries, the ptywright.*
// host table, budgets, Lua↔Go conversion and the SDK) is internal/luart,
// which reaches the library only through the luart.Host and the callbacks
// built here. Most programs get extensions from a plugins.Registry
// (package ptywright/plugins), which loads manifests and the built-in
// plugins, rather than calling New.
package luahost
