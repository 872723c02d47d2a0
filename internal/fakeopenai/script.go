package fakeopenai

import (
	"strings"
	"time"
)

// Script is an ordered list of rules; the first whose Match accepts a turn
// request answers it. Rules are consulted for every turn, so the same rule
// answers the same prompt again (a retry after an error gets the same reply).
type Script []Rule

// Rule answers the requests Match accepts with Reply.
type Rule struct {
	Name  string // recorded in Request.Rule; for logs and assertions
	Match Matcher
	Reply Reply
	// Times, when positive, makes the rule answer only the first Times
	// requests it matches on one server; later ones go to the rules after
	// it (a flaky API: two 500s, then the answer).
	Times int
}

// Matcher decides whether a rule answers a request.
type Matcher func(*Request) bool

// UserSays matches a fresh user turn: the last input item is a user message
// containing substr. It does not match the continuation after a tool call,
// whose last item is the tool's output.
func UserSays(substr string) Matcher {
	return func(r *Request) bool {
		last := r.Last()
		return last.Type == "message" && last.Role == "user" && strings.Contains(last.Text(), substr)
	}
}

// AfterToolOutput matches the continuation after a tool ran: the input holds
// a tool output for callID after the last user message.
func AfterToolOutput(callID string) Matcher {
	return func(r *Request) bool {
		for _, o := range r.ToolOutputs() {
			if o.CallID == callID {
				return true
			}
		}
		return false
	}
}

// All matches when every matcher does.
func All(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// Reply is how the server answers one request: an HTTP error (Status set), a
// stream that fails (FailCode set), a shell tool call (Shell set) or an
// assistant message (Text). Build one with Text, SlowText, ShellCall,
// HTTPError or Failed; the zero value streams an empty message.
type Reply struct {
	// Text is the assistant message, streamed as output_text deltas of
	// ChunkRunes runes (default 16), ChunkDelay apart (default none).
	Text       string
	ChunkRunes int
	ChunkDelay time.Duration

	// Delay holds the stream after response.in_progress, before any output
	// item: the "thinking" time in which Codex shows its working indicator.
	Delay time.Duration

	// Shell, when set, makes the reply a shell tool call instead of a message.
	Shell *Shell

	// Status, when not 0 or 200, answers with this HTTP status and an OpenAI
	// error body made of ErrorType, ErrorCode and ErrorMessage. RetryAfter,
	// when positive, is sent as the retry-after header (whole seconds).
	Status       int
	RetryAfter   time.Duration
	ErrorType    string
	ErrorCode    string
	ErrorMessage string

	// FailCode, when set, streams response.created then response.failed with
	// this error code and ErrorMessage.
	FailCode string
}

// Shell is a shell command the fake model asks Codex to run.
type Shell struct {
	CallID  string // call_id Codex echoes back in function_call_output
	Command string // a shell command line, run with bash -lc by Codex
	// Justification, when set, asks for escalated (unsandboxed) execution
	// with this question, which makes Codex show its approval dialog under
	// approval_policy = "on-request".
	Justification string
	Workdir       string // optional working directory
}

// Text answers with an assistant message.
func Text(s string) Reply { return Reply{Text: s} }

// SlowText answers with an assistant message streamed chunk runes at a time,
// delay apart: long enough to capture the working state or to cancel it.
func SlowText(s string, chunk int, delay time.Duration) Reply {
	return Reply{Text: s, ChunkRunes: chunk, ChunkDelay: delay}
}

// Thinking answers like r after holding the stream for d first.
func Thinking(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// ShellCall answers with a shell tool call that asks for approval.
func ShellCall(callID, command, justification string) Reply {
	return Reply{Shell: &Shell{CallID: callID, Command: command, Justification: justification}}
}

// HTTPError answers with an HTTP error and the body the real API sends for
// it: 401 invalid_api_key, 429 rate_limit_exceeded, 5xx server_error.
func HTTPError(status int, retryAfter time.Duration) Reply {
	r := Reply{Status: status, RetryAfter: retryAfter}
	switch {
	case status == 401:
		r.ErrorType, r.ErrorCode = "invalid_request_error", "invalid_api_key"
		r.ErrorMessage = "Incorrect API key provided: sk-test***. You can find your API key at https://platform.openai.com/account/api-keys."
	case status == 429:
		r.ErrorType, r.ErrorCode = "requests", "rate_limit_exceeded"
		r.ErrorMessage = "Rate limit reached for requests. Please try again in 20s."
	case status >= 500:
		r.ErrorType = "server_error"
		r.ErrorMessage = "The server had an error while processing your request. Sorry about that!"
	default:
		r.ErrorType = "invalid_request_error"
		r.ErrorMessage = "fakeopenai: scripted error"
	}
	return r
}

// Failed answers 200 with a stream that ends in response.failed.
func Failed(code, message string) Reply {
	return Reply{FailCode: code, ErrorMessage: message}
}

// Sentinel wraps an answer payload in the markers the e2e test extracts it by.
func Sentinel(payload string) string {
	return SentinelOpen + payload + SentinelClose
}

// Sentinel markers around machine-extracted answers.
const (
	SentinelOpen  = "<<<ANSWER>>>"
	SentinelClose = "<<<END>>>"
)

// Trigger words of DemoScript, one per scripted behaviour.
const (
	DemoAnswer   = "ANSWER"     // text with a sentinel payload: <<<ANSWER>>>42<<<END>>>
	DemoTool     = "TOOL"       // shell call needing approval, then a final text
	DemoSlow     = "SLOW"       // a 60 s text stream, to capture working or cancel
	DemoLong     = "LONG"       // a long markdown answer that scrolls
	Demo429      = "ERR429"     // 429 with retry-after
	Demo401      = "ERR401"     // 401 invalid_api_key
	Demo500      = "ERR500"     // 500 server_error
	DemoFailed   = "FAILED"     // a stream ending in response.failed
	DemoSecret   = "ECHOSK"     // an answer quoting DemoSecretKey, to capture how a long key wraps
	DemoFlaky    = "FLAKY"      // two 500s, then an answer (Codex retries with request_max_retries >= 2)
	DemoQuote    = "FAKEDIALOG" // an answer that quotes Codex's approval dialog word for word
	DemoToolFile = "approved.txt"
	DemoToolID   = "call_fake_tool_1"
	// DemoSecretKey is a made-up OpenAI project key (158 characters).
	DemoSecretKey = "sk-proj-FYY-kv5ZJr3J1TWDtkwtDDb_xHKas1VOqg6YYZYn9ZhyiA4uoRgnatmUdjAWtGSU8po_799NksnRH9ucAUsdMlHUvTCQCyEZDz-TddJ8HyS5SUkCnD8zRA9a9SkpXz9w3QlY7Zkuvqdt7s8Stqcbnr"
)

// DemoQuotedDialog is DemoQuote's answer: Codex's approval dialog, quoted.
const DemoQuotedDialog = "Codex would ask you this:\n\n" +
	"Would you like to run the following command?\n\n" +
	"$ rm -rf build\n\n" +
	"\u203a 1. Yes, proceed (y)\n" +
	"  2. Yes, and don't ask again for commands that start with `rm` (p)\n" +
	"  3. No, and tell Codex what to do differently (esc)\n\n" +
	"Press enter to confirm or esc to cancel\n\n" +
	"That is all. " + SentinelOpen + "quoted" + SentinelClose

// DemoScript is the script the standalone runner and the capture sessions
// use: each trigger word (DemoAnswer, DemoTool, ...) in a prompt selects one
// behaviour. The tool continuation reports the exit code it saw.
func DemoScript() Script {
	long := strings.Repeat("- a line of the long answer that makes the transcript scroll\n", 40)
	return Script{
		{Name: "tool-done", Match: AfterToolOutput(DemoToolID), Reply: Text("The command ran. " + Sentinel("tool-ok"))},
		{Name: "answer", Match: UserSays(DemoAnswer), Reply: Text("Here is the answer: " + Sentinel("42"))},
		{Name: "tool", Match: UserSays(DemoTool), Reply: ShellCall(DemoToolID,
			"printf 'approved\\n' > "+DemoToolFile, "Allow writing "+DemoToolFile+" in the workspace?")},
		{Name: "slow", Match: UserSays(DemoSlow), Reply: Thinking(5*time.Second, SlowText(strings.Repeat("slow stream chunk. ", 30)+Sentinel("slow-ok"), 8, 400*time.Millisecond))},
		{Name: "long", Match: UserSays(DemoLong), Reply: Text("# Long answer\n\n" + long + "\n" + Sentinel("long-ok"))},
		{Name: "429", Match: UserSays(Demo429), Reply: HTTPError(429, 20*time.Second)},
		{Name: "401", Match: UserSays(Demo401), Reply: HTTPError(401, 0)},
		{Name: "500", Match: UserSays(Demo500), Reply: HTTPError(500, 0)},
		{Name: "secret", Match: UserSays(DemoSecret), Reply: Text("Set it in your shell profile:\n\nexport OPENAI_API_KEY=" + DemoSecretKey + "\n\nThe key " + DemoSecretKey + " then reaches every new shell.")},
		{Name: "failed", Match: UserSays(DemoFailed), Reply: Failed("server_error", "fakeopenai: scripted stream failure")},
		{Name: "flaky-500", Match: UserSays(DemoFlaky), Reply: HTTPError(500, 0), Times: 2},
		{Name: "flaky", Match: UserSays(DemoFlaky), Reply: Text("Third time lucky: " + Sentinel("flaky-ok"))},
		{Name: "quote", Match: UserSays(DemoQuote), Reply: Text(DemoQuotedDialog)},
	}
}
