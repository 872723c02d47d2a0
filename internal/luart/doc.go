// Package luart is the Lua sandbox behind luahost.Extension: one
// go-lua state per plugin instance, and everything that runs in it.
//
// # What it holds
//
//   - The state (runtime.go): base, string, table and math only, with
//     loading and the collector removed; print, error, pcall and xpcall
//     replaced so budget errors cannot be swallowed and error values
//     survive go-lua; every Go function wrapped so a Go panic becomes a
//     Lua error and the state is replaced after the call.
//   - Budgets (budget.go, memory.go): an instruction and wall-clock budget
//     on every call, and a memory budget on every state, checked before
//     each allocation through the go-lua patch in third_party/go-lua.
//   - The ptywright host table (hostapi.go, invalid.go): action and
//     matcher constructors gated by the manifest's permissions, re.*,
//     text.* (text.go: the string and row helpers every plugin shares),
//     json helpers, empty_array, invalid_params and refuse; and the
//     runtime SDK (sdk.go): emit, on, on_cleanup, context, log.*, and the
//     Ok/Err hook results.
//   - Lua↔Go conversion (conv.go, convpush.go) through JSON shapes, exact
//     for integers up to 2^53, bounded in depth and memory.
//   - Argument helpers (args.go): Check* and Opt*, raising Lua's own
//     "bad argument" messages.
//
// # How the host reaches it
//
// The runtime imports nothing of ptywright's root package. Everything it
// needs from there comes in explicitly: a *Host (the host's error classes,
// key/signal/size validation, redaction, the core event names and the
// event depth bound) shared by all runtimes, and per runtime a Config
// (manifest, source, Limits, Scope, logger, and the Emit and Handled
// callbacks that connect it to an event bus). Calls go through Runtime.Call,
// which pushes arguments with Args and hands the result to the host as a
// Value, so the host decodes results in Lua's terms without touching
// go-lua. A Runtime is not safe for concurrent use: its owner serialises
// calls.
package luart
