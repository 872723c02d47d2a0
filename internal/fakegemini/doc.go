// Package fakegemini is a fake Gemini API (generativelanguage v1beta) on
// loopback, written to drive the real Gemini CLI offline in end-to-end
// tests and fixture captures.
//
// The server answers POST /v1beta/models/MODEL:generateContent with one
// GenerateContentResponse and POST .../MODEL:streamGenerateContent?alt=sse
// with a server-sent-event stream of them, shaped like the real API
// (candidates with content parts, finishReason, usageMetadata,
// modelVersion, responseId), and countTokens with a token count. Which
// answer a request gets is chosen from its content, never from a call
// count, because the Gemini CLI makes side calls a counter would misalign:
// before each turn a routing call (generateContent with a JSON response
// schema asking for model_choice), and after some turns a next-speaker
// check. So:
//
//   - a request that asks for JSON (generationConfig.responseMimeType
//     application/json, a response schema) is a side call, answered with
//     a JSON object that fits its schema (SideAnswer: model_choice
//     "flash", next_speaker "user", ...);
//   - otherwise the first Rule of the Script whose Match accepts the
//     request answers it (UserSays matches a fresh user turn,
//     AfterFunctionResponse the continuation after a tool ran);
//   - otherwise a text reply names the prompt nothing matched.
//
// Every request, to any path, is recorded (Server.Requests) so a test can
// assert on what the CLI sent, and Server.WaitRequest blocks until one
// arrives. A shell tool call is a functionCall part naming
// run_shell_command, the Gemini CLI's shell tool, which asks for
// confirmation before it runs.
//
// Example:
//
//	srv := fakegemini.NewServer(fakegemini.Script{
//		{Name: "answer", Match: fakegemini.UserSays("life"), Reply: fakegemini.Text("<<<ANSWER>>>42<<<END>>>")},
//	}, fakegemini.Options{})
//	defer srv.Close()
//	err := fakegemini.Settings{}.Write(home) // $HOME/.gemini/settings.json
//	// run gemini with GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL=srv.URL
package fakegemini
