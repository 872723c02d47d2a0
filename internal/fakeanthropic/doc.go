// Package fakeanthropic is a scripted stand-in for the Anthropic Messages API,
// good enough for the real Claude Code CLI to run a whole session offline.
//
// It exists so end-to-end tests (and people capturing screens by hand) can
// drive the real `claude` binary through its states — trust, prompt, spinner,
// answer, permission dialogs, cancellation, error banners — with replies that
// are known in advance.
//
// A [Server] answers POST /v1/messages with the same server-sent events the
// real API sends (message_start, content_block_start, content_block_delta with
// text_delta or input_json_delta, content_block_stop, message_delta,
// message_stop, ping) or with a JSON message when the request does not ask to
// stream. Which reply a request gets is chosen from the conversation it
// carries, not from how many calls came before, because Claude Code makes side
// calls of its own (titles, quota checks) between turns: see [Match].
//
// Claude Code's first-launch screens check that api.anthropic.com and
// platform.claude.com answer before they let the user confirm an API key. The
// server therefore also runs an HTTPS proxy on loopback that terminates TLS
// with a certificate authority of its own, so those checks reach the fake too.
// [Server.Env] gives the environment that points the CLI at both.
//
// Example:
//
//	srv := fakeanthropic.New(t,
//		fakeanthropic.Rule{When: fakeanthropic.Match{Prompt: "hello"},
//			Reply: fakeanthropic.Reply{Text: "Hi from the fake."}},
//	)
//	cmd := exec.Command("claude")
//	cmd.Env = append(os.Environ(), srv.Env()...)
package fakeanthropic
