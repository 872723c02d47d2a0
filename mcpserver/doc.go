// Package mcpserver serves ptywright over the Model Context Protocol, so an
// agent client (Claude Code, Codex, an editor) can drive terminal programs
// through tools: start a program on a pseudo-terminal, type into it, wait
// for what it prints and read its screen; or drive an agent CLI through a
// plugin's intents.
//
// It is another face of the root package, like rpc: the tools are named
// after the JSON-RPC methods they mirror (session_start for
// session.create, adapter_send for adapter.send, ...) and apply the same
// rules (internal/host): redaction of every screen and state handed out,
// the plugin's declared permissions, its budgets.
//
// Each client connection owns what it starts. When the client disconnects
// (or the server's context ends) every session and adapter it started is
// closed and its child reaped.
//
// A bad line from the client is not a disconnect. IOTransport, the
// transport `ptywright mcp` serves stdio on, answers a line that is not
// JSON (-32700), not a JSON-RPC 2.0 message, a batch, or longer than
// MaxMessageBytes (-32600), with id null, and reads on; the SDK's own
// IOTransport ends the connection, and with it the client's sessions.
//
// A tool that fails answers a tool result with isError set and a message
// for the model, never a protocol error; a wait that times out is not a
// failure: it answers matched: false with the last screen. An adapter tool
// that times out (adapter_turn's wait, or adapter_state and adapter_send
// given a deadline) answers isError with, in its structured content, the
// explanation of the adapter's last classification (rule, evidence, what
// the plugin rejected; redacted) and in its text a "Why:" line.
package mcpserver
