// Package rpc serves ptywright's JSON-RPC 2.0 protocol (see the JSON-RPC
// reference in the spec) over a byte stream: stdio, a Unix socket shared by
// many clients, or anything else that is an io.ReadWriteCloser.
//
// It adapts the root package and holds no terminal logic of its own. One
// concern per file:
//
//   - frame.go: framing (NDJSON lines, LSP Content-Length frames), bounded
//     at MaxFrameBytes, resynchronising after bad frames where it can;
//   - wire.go, messages.go: the JSON-RPC objects, requests and batches;
//   - errors.go: error codes, matched with errors.Is and kept through %w,
//     and the mapping of the root package's sentinels to them;
//   - params.go: strict params decoding that names the offending field;
//   - conn.go: one connection: concurrent requests, one writer, and its
//     end; budget.go: the bytes its requests in flight may hold
//     (MaxInFlightBytes); hangup.go: whether a peer that stopped sending
//     is gone or only half-closed;
//   - notify.go: per-connection notification subscriptions, coalesced;
//   - hold.go: ordering: a request's notifications wait for its response;
//   - registry.go: the sessions all connections share, and their watchers;
//   - adapters.go: the adapters all connections share, and the waits bound
//     to client-chosen wait ids;
//   - serve.go, socket*.go: the Server, its transports and Close;
//   - method_table.go: the method table, every method's handler beside
//     its params and result types, summary and error codes;
//   - discover.go, schema.go: rpc.discover, the OpenRPC document built
//     from the method table, its schemas reflected from those types;
//   - methods.go, session_methods.go: server.* and session.*;
//   - adapter_start.go, adapter_methods.go, plugin_methods.go: the
//     extension layer's adapter.* and plugin.*, present when
//     Options.Plugins is set; plugin_call.go: plugin.call, hooks of
//     loaded plugins and inline scripts;
//   - events.go: the runtime SDK's events: adapter.event delivers core
//     events (session:* published by each session on the server's bus,
//     see ptywright.Session.PublishEvents; adapter:state_changed) and
//     plugin events to clients that subscribed with events: true, queued
//     (never coalesced) up to MaxQueuedEvents.
//
// docs/protocol.md is the protocol's reference for client authors;
// rpc.discover answers its machine-readable form, an OpenRPC document.
//
// # Ordering
//
// For a request, the direct response is written first, then the
// notifications it caused. A request that acts on a session (session.input,
// resize, kill, close; adapter.send, close, resume) or creates one
// (session.create, adapter.start, adapter.resume) holds its connection's
// notifications about that session (session.changed, output, exited,
// adapter.lifecycle, and adapter.event events scoped to it) until its
// response is written. Nothing else waits: other sessions, other
// connections, and sessions with only reads or waits pending stream as they
// change. adapter.turn, a send and a wait that may last minutes, holds
// nothing, so its output streams while it waits. See hold.go.
//
// # Connections
//
// A connection ends when its peer is gone, not when the peer's requests
// time out. A peer that only stopped sending (stdin's end under
// `printf '...' | ptywright serve --stdio`, a socket's shutdown(SHUT_WR))
// still gets the answers of the requests it sent. A peer that is gone (a
// closed or killed socket client, which poll(2) reports as a hangup; on
// stdio, stdout's reader gone too; a reset; a failed write) has its
// pending requests cancelled at once, as adapter.cancel_wait would, and
// their goroutines and the stream released. When the server closes (or
// the context given to Serve or ServeConn ends), every request a
// connection started is cancelled and answered before the stream closes
// (a wait: -32005 with its evidence); Close cancels them before it closes
// the sessions, and a peer that reads nothing is cut off after 2 s.
//
// # Adapters
//
// An adapter ("e1", "e2", ...) is a ptywright.ExtensionHandle over a fresh
// instance of a plugin of kind adapter (adapter.list lists only those;
// adapter.start refuses a matcher or macro plugin with -32602), driving a
// session registered like any other ("s1", ...) but owned by the adapter.
// Every session.* mutation of it (session.input, whatever the action,
// session.resize, session.kill, session.close) is refused with -32602
// naming the adapter and the adapter method to use: it would bypass the
// adapter's permissions and its turn lock. Reads (session.snapshot,
// session.transcript, session.wait) and notifications work as for any
// session, and a notification filter on the adapter's id matches it. Each
// adapter method checks the adapter's manifest permissions first (-32004
// with data {method, required_permission}). A send, wait or turn holds the
// adapter's lock; a call queued behind it keeps its own clock: it ends with
// -32001 at its own timeout_ms, or -32005 once adapter.cancel_wait cancels
// its wait_id (bound before it queues), without disturbing the holder.
//
// # Errors
//
// Errors map the root package's sentinels to codes (errors.go). A caller's
// mistake is -32602: unknown ids and bad params, a program that cannot be
// started (missing, a directory, not executable, not a runnable format), an
// inline plugin.call script that does not load (a Lua syntax error), and
// params a plugin rejects by raising ptywright.invalid_params(message) (the
// built-in plugins do for a missing or mistyped param). An intent a plugin
// declines on the screen as it is, by raising ptywright.refuse(message)
// (approve with no dialog up, send_prompt into a composer that still holds
// text), is -32006 "intent refused": nothing was written, the params may be
// right, and the same intent may succeed on a later screen. A plugin's own
// failure (any other Lua error) is -32603.
//
// Fields added to the reference's wire (all additive):
//
//   - adapter.send answers {state, receipt}; adapter.turn adds receipt to
//     its result. A receipt (ptywright.Receipt) says what became of the
//     intent: intent, effect ("confirmed": the change the plugin expects
//     was seen; "ignored": not seen within its window, after the one retry
//     a plan may allow; "unverified": the plugin declared no expectation,
//     or the program exited first), bytes, attempts, sequence (the
//     screen's sequence as the first write began), held_ms (how long input
//     readiness held the keys), elapsed_ms, state_before, and
//     confirmed_state, evidence or reason. An ignored send is a success
//     reply with effect "ignored"; adapter.turn then does not wait, and its
//     matched is null. A plan may await a screen that takes its keys (the
//     built-in plugins' send_prompt awaits a composer they know is ready):
//     the keys wait for it, and when it does not come within the plan's
//     window nothing is written and the effect is "not_sent", with a reason
//     naming the state the screen stayed in (adapter.turn does not wait
//     then either).
//   - A prompt's turn (lifecycle turn_id) starts only when its receipt is
//     confirmed or unverified: an ignored or not sent prompt leaves the
//     lifecycle as it was, in the reply and in every notification.
//   - adapter.extract answers {matched, text, method, searched_chars}:
//     a pattern or sentinels not in the searched text is an outcome,
//     "matched": false with how many characters were searched, not an
//     error (ptywright.ErrNoMatch in Go, which is not ErrInvalidParams).
//   - session.input answers {sent, bytes, sequence}.
//   - session.wait and adapter.wait take after_sequence: screen,
//     transcript, cursor and lua branches match only once the screen has
//     changed after it, so such a wait sent right after input never
//     answers with the screen from before it. screen_stable alone is
//     different: it counts from the last change or from the wait's start,
//     whichever is later, and does not need a change after the sequence,
//     so a program that takes longer than min_ms to answer (300 ms, with
//     min_ms 200) is answered with the old screen after min_ms. Pair it
//     with a branch that needs the answer (text, regex) when that matters.
//   - session.wait takes exclude_echo with after_sequence: contains_text
//     and screen_regex do not match on the echo of the input written at
//     that sequence (ptywright.ExcludeEcho), only on the program's answer.
//     adapter.turn's wait passes the send's sequence by itself.
//   - screen_stable measures the visible screen (text, cursor, modes): a
//     program that redraws the same frame is stable.
//   - Text matchers see the cursor row's blanks up to the cursor, so a
//     prompt's trailing space (">>> ") matches; plain_text stays trimmed.
//   - A none matcher ({"type":"none","value":[...]}) matches when none of
//     its matchers does.
//   - process_exited outcomes and session.exited carry exit: {code,
//     signal?} (code -1 when a signal ended the child).
//   - A state's input_settle_ms says how long after its first frame the
//     program takes keys; adapter.send holds the keys until then.
//   - adapter.explain {adapter, sequence?, redact?, redaction?} answers
//     {adapter, plugin, explanation}: the plugin's account of a
//     classification (state, confidence, sequence, rule: the stable id of
//     the plugin's rule that fired, region: {first_row, last_row},
//     evidence, considered: [{state?, rule?, reason}], parser_version,
//     parser, anomalies), redacted like every read. Without sequence it
//     classifies the screen now, queued like adapter.state; with sequence
//     it answers at once for the classification made at that screen
//     sequence (the newest one at or before it) while the adapter holds
//     it: an adapter holds its last 8 classifications (what the plugin saw,
//     explained on demand). An older or not yet classified sequence is
//     -32602 "classification at sequence N is no longer held: the oldest
//     held is at sequence M", data {sequence, oldest_held, newest_held,
//     held, capacity}.
//   - Every adapter wait that times out, is cancelled or can no longer
//     match once the program exited (adapter.wait, adapter.turn's wait,
//     wait_lifecycle, and a call that gave up while queued behind
//     another) carries data.explanation beside the last
//     screen: the explanation of the adapter's last classification (its
//     sequence says which screen), not a new one, redacted.
//
// A server on stdio, with the built-in plugins and one loaded from disk
// (the repository's testdata/plugins/echo; ExampleOptions_plugins runs it
// on a pipe):
//
//	reg, err := plugins.New(plugins.Options{})
//	...
//	defer reg.Close() // after the server
//	if _, err := reg.Load("testdata/plugins/echo/manifest.toml"); err != nil { ... }
//	srv := rpc.NewServer(rpc.Options{Plugins: reg, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
//	defer srv.Close()
//	err = srv.ServeConn(ctx, rpc.Stdio(os.Stdin, os.Stdout), rpc.NDJSON)
//
// and on the per-user socket:
//
//	path, err := rpc.DefaultSocketPath()
//	...
//	err = srv.ListenUnix(ctx, path) // until ctx ends or srv.Close
package rpc
