package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Rule pairs a condition on the conversation with the reply to send when it
// holds. The server tries rules in order and answers with the first that
// matches.
type Rule struct {
	When  Match `json:"when"`
	Reply Reply `json:"reply"`
	// Times limits how many requests the rule answers; 0 means no limit.
	// A rule with Times: 1 ahead of another with the same condition makes
	// "fail once, then succeed" scripts.
	Times int `json:"times,omitempty"`
}

// Match is a condition on a Messages request. Every field that is set must
// hold; the zero Match matches every agent-loop request.
//
// By default only agent-loop requests match: those that declare at least one
// tool. Claude Code's side calls (session titles, quota probes) declare none
// and would otherwise be answered with a script step meant for the user's
// prompt, whose text they often quote.
type Match struct {
	// Prompt must occur in the text the user typed in the latest user
	// message (see [MessagesRequest.LastUserText]). A prompt typed after an
	// interrupted tool call arrives in one message with that call's error
	// result; it still counts as a prompt.
	Prompt string `json:"prompt,omitempty"`
	// ToolResult requires the latest user message to be a tool-result turn
	// (tool_result blocks and no typed text) answering a tool_use of this tool
	// name ("Bash", ...), or of any tool when "*".
	ToolResult string `json:"tool_result,omitempty"`
	// ResultContains must occur in that tool_result's text. Claude Code
	// reports a denied permission as an error result whose text says the user
	// does not want to proceed, so this tells approve from deny.
	ResultContains string `json:"result_contains,omitempty"`
	// SideCalls lets the rule match requests that declare no tools too.
	SideCalls bool `json:"side_calls,omitempty"`
}

// matches reports whether the condition holds for req.
func (m Match) matches(req *MessagesRequest) bool {
	if !m.SideCalls && len(req.Tools) == 0 {
		return false
	}
	text := req.LastUserText()
	tr := req.LastToolResult()
	if m.Prompt != "" && (text == "" || !strings.Contains(text, m.Prompt)) {
		return false
	}
	if m.ToolResult != "" {
		if tr == nil || text != "" {
			return false
		}
		if m.ToolResult != "*" {
			use := req.ToolUse(tr.ToolUseID)
			if use == nil || use.Name != m.ToolResult {
				return false
			}
		}
	}
	if m.ResultContains != "" && (tr == nil || !strings.Contains(tr.ResultText(), m.ResultContains)) {
		return false
	}
	return true
}

// Reply is what the model answers: optional thinking, then text, then tool
// calls, streamed or as one JSON message depending on the request — or an
// API error instead of all of that.
type Reply struct {
	// Thinking, when set, comes first as a thinking block.
	Thinking string `json:"thinking,omitempty"`
	// Text is the answer's text block. Empty with no ToolUses still sends
	// one empty text block, as the API does.
	Text string `json:"text,omitempty"`
	// ToolUses follow the text; the stop reason becomes "tool_use".
	ToolUses []ToolUse `json:"tool_uses,omitempty"`
	// StopReason overrides the stop reason ("max_tokens", "refusal", ...).
	StopReason string `json:"stop_reason,omitempty"`
	// ChunkRunes is how many runes each text_delta carries; 0 splits the text
	// after each space instead, roughly as the API does.
	ChunkRunes int `json:"chunk_runes,omitempty"`
	// StartDelay is waited after message_start, before the first block:
	// the client shows its spinner with no text yet.
	StartDelay time.Duration `json:"start_delay,omitempty"`
	// Delay is waited before each delta. A long Delay makes a slow stream
	// the user can cancel; the server stops when the client disconnects.
	Delay time.Duration `json:"delay,omitempty"`
	// Error, when set, replaces the reply with an API error.
	Error *APIError `json:"error,omitempty"`
}

// UnmarshalJSON accepts durations as Go duration strings ("250ms") or as
// integer nanoseconds.
func (r *Reply) UnmarshalJSON(b []byte) error {
	type plain Reply
	var aux struct {
		plain
		StartDelay json.RawMessage `json:"start_delay,omitempty"`
		Delay      json.RawMessage `json:"delay,omitempty"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*r = Reply(aux.plain)
	var err error
	if r.StartDelay, err = parseDuration("start_delay", aux.StartDelay); err != nil {
		return err
	}
	if r.Delay, err = parseDuration("delay", aux.Delay); err != nil {
		return err
	}
	return nil
}

func parseDuration(field string, raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("fakeanthropic: reply field %q: %w", field, err)
		}
		return d, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("fakeanthropic: reply field %q: want a duration string or nanoseconds: %w", field, err)
	}
	return time.Duration(n), nil
}

// ToolUse is one tool call the model makes.
type ToolUse struct {
	// ID defaults to a fresh "toolu_fake_N".
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	// Input is the tool's arguments, e.g. {"command":"echo hi > f.txt",
	// "description":"Write f.txt"} for Bash.
	Input json.RawMessage `json:"input"`
}

// BashTool is a shorthand for the Bash tool call Claude Code runs.
func BashTool(command, description string) ToolUse {
	in, _ := json.Marshal(map[string]string{"command": command, "description": description}) // Best effort: strings always marshal.
	return ToolUse{Name: "Bash", Input: in}
}

// APIError is an error response in the API's shape:
// {"type":"error","error":{"type":...,"message":...},"request_id":...}.
type APIError struct {
	// Status is the HTTP status: 400, 401, 403, 404, 413, 429, 500, 529...
	Status int `json:"status"`
	// Type is the error type: "rate_limit_error", "overloaded_error",
	// "authentication_error", "invalid_request_error", "api_error"...
	Type    string `json:"type"`
	Message string `json:"message"`
	// RetryAfter, when set, is sent as the retry-after header (seconds).
	RetryAfter string `json:"retry_after,omitempty"`
	// NoRetry sends x-should-retry: false, which tells the SDK not to retry.
	NoRetry bool `json:"no_retry,omitempty"`
	// InStream sends the error as an SSE "error" event after a 200 response
	// has started streaming, as the API does when it fails mid-answer. It
	// applies to streaming requests only.
	InStream bool `json:"in_stream,omitempty"`
}

// Common errors, ready to put in a Reply.
var (
	RateLimited = APIError{Status: 429, Type: "rate_limit_error",
		Message: "This request would exceed your organization's rate limit. Please try again later.", RetryAfter: "5"}
	Overloaded = APIError{Status: 529, Type: "overloaded_error", Message: "Overloaded"}
	BadAPIKey  = APIError{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}
)
