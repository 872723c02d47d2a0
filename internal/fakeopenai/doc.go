// Package fakeopenai is a fake OpenAI Responses API on loopback, written to
// drive the real Codex CLI offline in end-to-end tests and fixture captures.
//
// The server answers POST /v1/responses with a server-sent-event stream shaped
// like the real API (response.created, response.in_progress,
// response.output_item.added, response.content_part.added,
// response.output_text.delta, ..., response.completed with usage) and streams
// function calls the way Codex expects them. Which answer a request gets is
// chosen from its content, never from a call count, because Codex makes side
// calls (a thread-title request after the first prompt) that a counter would
// misalign:
//
//   - a side call for the thread title is answered with Options.Title;
//   - otherwise the first Rule of the Script whose Match accepts the request
//     answers it (UserSays matches a fresh user turn, AfterToolOutput the
//     continuation after a tool ran);
//   - otherwise a text reply names the prompt nothing matched.
//
// Every request, to any path, is recorded (Server.Requests) so a test can
// assert on what Codex sent, and Server.WaitRequest blocks until one arrives.
// A shell tool call is emitted in the form the request's tools list asks for:
// exec_command (Codex 0.1xx), the older shell function, or local_shell.
//
// Example:
//
//	srv := fakeopenai.NewServer(fakeopenai.Script{
//		{Name: "answer", Match: fakeopenai.UserSays("life"), Reply: fakeopenai.Text("<<<ANSWER>>>42<<<END>>>")},
//	}, fakeopenai.Options{})
//	defer srv.Close()
//	cfg := fakeopenai.CodexConfig{BaseURL: srv.BaseURL(), Workdir: dir}.TOML()
package fakeopenai
