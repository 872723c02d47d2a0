// Package ptywright drives interactive terminal programs through a real
// pseudo-terminal, keeps a parsed screen of what they show, and lets code act
// on it and wait for it: Playwright for TUIs.
//
// # Sessions and screens
//
// A [Session] runs one program on a PTY ([Start], [Options]). One goroutine
// reads its output and another feeds it to a [Screen] (the parsed grid:
// text, cells, styles, cursor, modes, title; see [ScreenSnapshot]) and a
// bounded transcript; every change advances a sequence number and wakes
// every waiter at once. Nothing polls. [Session.Close] ends everything the
// program started, on Linux the daemons that detached from its terminal
// session included ([SessionMarkerEnv], [Options].KeepDetached).
//
//	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh"})
//	if err != nil { ... }
//	defer s.Close()
//	w, err := s.Perform(ctx, ptywright.Text("sleep 0.1; echo done\r"))
//	if err != nil { ... }
//	// What followed the input, and not its echo: the command line
//	// holds "done" too.
//	res, err := s.Wait(ctx, ptywright.ContainsText("done"), ptywright.AfterInput(w))
//
// The package example (Example) runs it.
//
// The emulator behind a Screen is chosen by [Engine]: [EngineVTCore], the
// default, or [EngineXVT].
//
// # Actions and keys
//
// An [Action] is what a user would do at the keyboard, or to the process:
// [Text], [Paste], [BracketedPaste], [Press] (a [Key]: the named keys such
// as [KeyEnter], [Ctrl] and [F], with modifiers by [Key.With]), [Resize],
// [Interrupt], [EOF], [Kill], [SendSignal] and [MarkTranscript].
// [Session.Mouse] clicks, drags and scrolls as xterm reports it, at a cell
// or where a text is on screen, once the program turned mouse reporting on.
//
// # Matchers and waits
//
// A [Matcher] ([ContainsText], [ScreenRegex], [TranscriptContains],
// [TranscriptRegex], [CursorAt], [ScreenStable], [ProcessExited], [Any],
// [All], [None], [Lua]) describes what to wait for. [Session.Wait] returns
// a [WaitResult] with evidence of the branch that fired, and on timeout a
// *[WaitError] with the last screen, whose text names the matcher and shows
// the screen's last rows. A context without a deadline gets
// [DefaultWaitTimeout]. [After] limits a wait to what followed a given
// sequence; [AfterInput] also keeps text matchers off the input's own echo
// ([ExcludeEcho], [Written].Echo).
//
// A [Preset] starts bash, sh, zsh or python3 with a prompt ptywright knows
// ([StartShell]): [Shell.Run] returns a command's output, without its echo
// or the next prompt, and its status.
//
// # Redaction
//
// Everything that leaves the library is redacted (see [RedactionPolicy]
// and [Redactor]): snapshots, transcripts, the output stream, wait
// evidence, recordings and errors, and whatever an [ExtensionHandle]
// returns (states, receipts, explanations, projections, inspections,
// extractions). A session redacts with the redactor it was started with
// ([Options].Redactor), a handle with its own ([HandleOptions].Redactor)
// or its session's, and both default to [DefaultRedactor]. A read that
// takes a *Redactor uses that one, nil meaning the session's or handle's;
// raw text is asked for explicitly, with [NoRedaction].
//
// # Transcript, recording and replay
//
// [Session.Transcript] and [Session.OutputSince] read what the program
// wrote, with markers ([Session.Mark]). [Options].RecordPath records an
// asciicast v2 file (package [ptywright/asciicast]); [Replay] plays one back
// through a Screen and [ReplayClassify] through an [Extension]. Package
// [ptywright/svg] draws a snapshot as a picture.
//
// # Extensions and plugins
//
// An [ExtensionHandle] drives a session through an [Extension], which owns
// one TUI's vocabulary: states, intents and wait matchers. Every intent
// sent comes back with a [Receipt]. The provider-agnostic reading of a
// screen, its turn lifecycle and its dialog projection are the shared
// contract of package [ptywright/contract].
//
// Package [ptywright/luahost] runs a Lua plugin (go-lua, Lua 5.2) as an
// Extension, in a sandbox: base, string, table and math only, Lua 5.2
// patterns, host helpers gated by the manifest's permissions, instruction
// and wall-clock budgets on every call, and a memory budget on every
// instance, checked before each allocation through a small patch of go-lua
// kept in internal/golua. The sandbox itself is internal/luart, which
// only luahost reaches. Manifests are package [ptywright/manifest]; the
// registry of built-in and trusted-local plugins, which also decides lua
// matchers (a [ptywright/contract.PredicateRegistry]), is package [ptywright/plugins].
//
// # Plugin runtime SDK
//
// Plugins also get a small runtime SDK: ptywright.emit (fire-and-forget
// events, namespaced "<plugin>:<event>"), ptywright.on (handlers of core
// events such as session:exited and adapter:state_changed, or of other
// plugins' events; a failing handler is logged, never felt),
// ptywright.on_cleanup (run once, newest first, when the program exits or
// the instance closes, before the plugin's close() export),
// ptywright.log (log/slog, each message prefixed "[<plugin>] " and
// attributed plugin=<name>), ptywright.context() (the plugin's name and the
// session and adapter ids of the instance, which classify also gets as
// ctx.session and intents as their second argument),
// ptywright.text (trim, starts, after, segments, block and the other
// string and row helpers the plugins share, written in Go, for every
// plugin, no permission needed; see plugins/README.md),
// ptywright.invalid_params(message) (rejects the caller's params: the
// plugin's error wraps [ErrInvalidParams], -32602 over JSON-RPC, where any
// other Lua error is the plugin's own failure), and Ok/Err results for
// hooks, which luahost's CallHook and CallInline (and the registry's Call
// and CallInline) invoke by name with JSON arguments. Events travel on
// an [ptywright/events.Bus]: the registry's, or HandleOptions.Events. A
// session reports its own core events (session:created, session:resized,
// session:exited, payload [CoreEvent]) on the buses given to
// [Session.PublishEvents], so Go programs receive them the same way
// plugins and JSON-RPC clients do.
//
// # Lock order
//
// Locks are taken outermost first, and no type locks another type's mutex
// (it calls a method of that type instead):
//
//  1. plugins.Registry.mu, never held while calling out; then one plugin's
//     definition lock, held while the registry creates or closes its own
//     instances of that plugin.
//  2. An ExtensionHandle's turn lock, held across each of its State,
//     Send, Wait and Turn calls so that a turn's send and wait happen with
//     nothing in between (a queued caller keeps its context); then
//     ExtensionHandle.extMu, serialising calls into the extension (the
//     lifecycle goroutine classifies without the turn lock) and guarding
//     the classification's bookkeeping.
//  3. luahost.Extension's lock, serialising calls into one Lua state;
//     held while its event handlers run and while it emits.
//  4. A Session's publisher lock, held across a resize and the
//     session:resized it publishes so that events keep their order; then
//     Session.mu, then Screen.mu and the recorder's lock inside it, and
//     Session.replyMu (the terminal replies the screen hands on) inside
//     Screen.mu; Session.wsem (the one PTY write under way) on its own.
//  5. Leaves, held only for their own fields: events.Bus.mu (subscribers run
//     without it) and a Lua extension's event queue lock. Emitting never
//     runs another plugin's handlers under the emitter's locks: they are
//     queued and run on the receiving instance's own goroutine.
//
// A method named ...Locked expects its receiver's own mutex held by the
// caller (Session.mu, Screen.mu, a publisher's lock, ExtensionHandle.extMu);
// one named ...InTurn expects the handle's turn lock.
//
// # Errors
//
// Errors wrap the sentinels [ErrTimeout], [ErrCancelled], [ErrSessionClosed],
// [ErrProcessExited], [ErrPermissionDenied], [ErrInvalidParams] and
// [ErrUnsupported], and bad input gets a *[FieldError] naming the field;
// test them with errors.Is and errors.As. Every sentinel's text starts
// with "ptywright: ".
//
// # Other packages
//
// [ptywright/ptywrighttest] helps Go tests (leak-checked sessions, golden
// screens); [ptywright/rpc] serves this API as JSON-RPC 2.0 and
// [ptywright/mcpserver] as MCP tools; cmd/ptywright is the command.
package ptywright

// Version is the ptywright library version. Plugins see it as
// ptywright.version.
const Version = "0.1.0"
