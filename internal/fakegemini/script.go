package fakegemini

import (
	"fmt"
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

// UserSays matches a fresh user turn whose prompt (Request.Prompt)
// contains substr. It does not match the continuation after a tool call,
// whose last content is the tool's result.
func UserSays(substr string) Matcher {
	return func(r *Request) bool {
		p := r.Prompt()
		return p != "" && strings.Contains(p, substr)
	}
}

// AfterFunctionResponse matches the continuation after a tool ran: the
// last content holds a function response whose id (or, without one, whose
// name) is callID.
func AfterFunctionResponse(callID string) Matcher {
	return func(r *Request) bool {
		for _, fr := range r.Last().FunctionResponses() {
			if fr.ID == callID || (fr.ID == "" && fr.Name == callID) {
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

// Reply is how the server answers one request: an HTTP error (Status set),
// a stream cut off midway (Cut set), a function call (Call set) or a model
// message (Text). Build one with Text, SlowText, ShellCall, HTTPError or
// Overloaded; the zero value answers with an empty message.
type Reply struct {
	// Text is the model's message, streamed in chunks of ChunkRunes runes
	// (default 16), ChunkDelay apart (default none).
	Text       string
	ChunkRunes int
	ChunkDelay time.Duration

	// Delay holds the answer before its first byte of output: the
	// "thinking" time in which the CLI shows its spinner.
	Delay time.Duration

	// Call, when set, makes the reply a function call instead of a message
	// (after Text, if any, as the model's preamble).
	Call *FunctionCall

	// Status, when not 0 or 200, answers with this HTTP status and a
	// google.rpc error body (ErrorStatus, ErrorMessage). RetryAfter, when
	// positive, is sent as a RetryInfo detail and the retry-after header.
	Status       int
	RetryAfter   time.Duration
	ErrorStatus  string
	ErrorMessage string

	// Cut, when set, ends a stream after its first chunk without a
	// finishReason: the connection is closed as if the server died.
	Cut bool
}

// Text answers with a model message.
func Text(s string) Reply { return Reply{Text: s} }

// SlowText answers with a message streamed chunk runes at a time, delay
// apart: long enough to capture the working state or to cancel it.
func SlowText(s string, chunk int, delay time.Duration) Reply {
	return Reply{Text: s, ChunkRunes: chunk, ChunkDelay: delay}
}

// Thinking answers like r after holding the answer for d first.
func Thinking(d time.Duration, r Reply) Reply {
	r.Delay = d
	return r
}

// ShellTool is the Gemini CLI's shell tool, which asks for confirmation.
const ShellTool = "run_shell_command"

// ShellCall answers with a call of the shell tool (run_shell_command)
// with id callID, running command, described by description.
func ShellCall(callID, command, description string) Reply {
	args := map[string]any{"command": command}
	if description != "" {
		args["description"] = description
	}
	return Reply{Call: &FunctionCall{ID: callID, Name: ShellTool, Args: args}}
}

// HTTPError answers with an HTTP error and the body the real API sends
// for it: 400/401 an invalid key, 429 RESOURCE_EXHAUSTED with a retry
// delay, 500 INTERNAL, 503 UNAVAILABLE (see Overloaded).
func HTTPError(status int, retryAfter time.Duration) Reply {
	r := Reply{Status: status, RetryAfter: retryAfter}
	switch {
	case status == 400 || status == 401:
		r.ErrorStatus = "UNAUTHENTICATED"
		if status == 400 {
			r.ErrorStatus = "INVALID_ARGUMENT"
		}
		r.ErrorMessage = "API key not valid. Please pass a valid API key."
	case status == 403:
		r.ErrorStatus = "PERMISSION_DENIED"
		r.ErrorMessage = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	case status == 429:
		r.ErrorStatus = "RESOURCE_EXHAUSTED"
		r.ErrorMessage = "You exceeded your current quota, please check your plan and billing details."
	case status == 503:
		r.ErrorStatus = "UNAVAILABLE"
		r.ErrorMessage = "The model is overloaded. Please try again later."
	case status >= 500:
		r.ErrorStatus = "INTERNAL"
		r.ErrorMessage = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	default:
		r.ErrorStatus = "INVALID_ARGUMENT"
		r.ErrorMessage = "fakegemini: scripted error"
	}
	return r
}

// Overloaded answers 503 UNAVAILABLE, "The model is overloaded".
func Overloaded() Reply { return HTTPError(503, 0) }

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
	DemoAnswer     = "ANSWER"     // text with a sentinel payload: <<<ANSWER>>>42<<<END>>>
	DemoTool       = "TOOL"       // a shell call needing confirmation, then a final text
	DemoToolDeny   = "DENYME"     // a second shell call (its own file), to deny
	DemoFailingCmd = "FAILCMD"    // a shell call whose command fails
	DemoSlow       = "SLOW"       // a slow stream (~60 s), to capture working or cancel
	DemoLong       = "LONG"       // a long markdown answer that scrolls
	Demo429        = "ERR429"     // 429 RESOURCE_EXHAUSTED with a retry delay
	Demo401        = "ERR401"     // 401 UNAUTHENTICATED, an invalid key
	Demo500        = "ERR500"     // 500 INTERNAL
	DemoOverloaded = "OVERLOADED" // 503 UNAVAILABLE, the model is overloaded
	DemoCut        = "CUTOFF"     // a stream that ends mid-answer
	DemoFlaky      = "FLAKY"      // two 500s, then an answer (the CLI retries)
	DemoQuote      = "FAKEDIALOG" // an answer that quotes the CLI's confirmation dialog word for word
	DemoMarkdown   = "MARKDOWN"   // an answer with a heading, a list, a table and code
	DemoWrite      = "WRITEFILE"  // a write_file call (the edit confirmation dialog)
	DemoToolFile   = "approved.txt"
	DemoDenyFile   = "denied.txt"
	DemoToolID     = "call_fake_tool_1"
	DemoDenyID     = "call_fake_deny_1"
	DemoFailID     = "call_fake_fail_1"
	DemoWriteID    = "call_fake_write_1"
	DemoWriteFile  = "notes.txt"
)

// DemoQuotedDialog is DemoQuote's answer: the Gemini CLI's shell
// confirmation dialog, quoted.
const DemoQuotedDialog = "The CLI would ask you this:\n\n" +
	"```\n" +
	"╭──────────────────────────────────────────────╮\n" +
	"│ ?  Shell rm -rf build                        │\n" +
	"│                                              │\n" +
	"│ rm -rf build                                 │\n" +
	"│ Allow execution of: 'rm'?                    │\n" +
	"│                                              │\n" +
	"│ ● 1. Allow once                              │\n" +
	"│   2. Allow for this session                  │\n" +
	"│   3. No, suggest changes (esc)               │\n" +
	"╰──────────────────────────────────────────────╯\n" +
	"```\n\n" +
	"That is all. " + SentinelOpen + "quoted" + SentinelClose

// DemoLoop is a prompt word whose answer repeats one line forty times:
// the CLI's loop detection cuts the stream and asks whether to keep it on.
const DemoLoop = "LOOPY"

// DemoScript is the script the standalone runner, the captures and the
// end-to-end tests use: each trigger word (DemoAnswer, DemoTool, ...) in a
// prompt selects one behaviour. Each tool continuation reports the tool it
// saw.
func DemoScript() Script {
	// Numbered lines: forty identical ones make the CLI's loop detection
	// stop the stream and ask ("A potential loop was detected").
	var long strings.Builder
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&long, "- line %d of the long answer, which makes the transcript scroll\n", i)
	}
	return Script{
		{Name: "tool-done", Match: AfterFunctionResponse(DemoToolID), Reply: Text("The command ran. " + Sentinel("tool-ok"))},
		{Name: "deny-done", Match: AfterFunctionResponse(DemoDenyID), Reply: Text("The command did not run. " + Sentinel("deny-ok"))},
		{Name: "fail-done", Match: AfterFunctionResponse(DemoFailID), Reply: Text("The command failed. " + Sentinel("fail-ok"))},
		{Name: "write-done", Match: AfterFunctionResponse(DemoWriteID), Reply: Text("The file is written. " + Sentinel("write-ok"))},
		{Name: "answer", Match: UserSays(DemoAnswer), Reply: Text("Here is the answer: " + Sentinel("42"))},
		{Name: "tool", Match: UserSays(DemoTool), Reply: ShellCall(DemoToolID,
			"printf 'approved\\n' > "+DemoToolFile, "Write "+DemoToolFile+" in the workspace.")},
		{Name: "deny", Match: UserSays(DemoToolDeny), Reply: ShellCall(DemoDenyID,
			"printf 'denied\\n' > "+DemoDenyFile, "Write "+DemoDenyFile+" in the workspace.")},
		{Name: "failcmd", Match: UserSays(DemoFailingCmd), Reply: ShellCall(DemoFailID,
			"ls /nonexistent-fakegemini-dir", "List a directory that does not exist.")},
		{Name: "write", Match: UserSays(DemoWrite), Reply: Reply{Call: &FunctionCall{ID: DemoWriteID, Name: "write_file",
			Args: map[string]any{"file_path": DemoWriteFile, "content": "hello from the fake\n"}}}},
		{Name: "slow", Match: UserSays(DemoSlow), Reply: Thinking(5*time.Second, SlowText(strings.Repeat("slow stream chunk. ", 30)+Sentinel("slow-ok"), 8, 400*time.Millisecond))},
		{Name: "long", Match: UserSays(DemoLong), Reply: Text("# Long answer\n\n" + long.String() + "\n" + Sentinel("long-ok"))},
		{Name: "loop", Match: UserSays(DemoLoop), Reply: Text(strings.Repeat("- a line that repeats and repeats\n", 40))},
		{Name: "markdown", Match: UserSays(DemoMarkdown), Reply: Text("## Heading\n\n1. first item\n2. second item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfmt.Println(\"hi\")\n```\n\n" + Sentinel("md-ok"))},
		{Name: "429", Match: UserSays(Demo429), Reply: HTTPError(429, 20*time.Second)},
		{Name: "401", Match: UserSays(Demo401), Reply: HTTPError(401, 0)},
		{Name: "500", Match: UserSays(Demo500), Reply: HTTPError(500, 0)},
		{Name: "overloaded", Match: UserSays(DemoOverloaded), Reply: Overloaded()},
		{Name: "cut", Match: UserSays(DemoCut), Reply: Reply{Text: "This answer is cut off in the middle of a sentence because", Cut: true}},
		{Name: "flaky-500", Match: UserSays(DemoFlaky), Reply: HTTPError(500, 0), Times: 2},
		{Name: "flaky", Match: UserSays(DemoFlaky), Reply: Text("Third time lucky: " + Sentinel("flaky-ok"))},
		{Name: "quote", Match: UserSays(DemoQuote), Reply: Text(DemoQuotedDialog)},
	}
}
