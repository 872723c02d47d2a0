package fakeanthropic

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one HTTP request the server received, kept so tests can assert
// on what the client sent.
type Request struct {
	Time   time.Time
	Method string
	// Host is the host the client addressed: the server's own address for
	// direct calls, or the upstream name (api.anthropic.com, ...) for calls
	// that came through the proxy.
	Host   string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	// Messages is the decoded body of a POST /v1/messages, nil otherwise.
	Messages *MessagesRequest
	// Rule is the index of the rule that answered it, or -1 when no rule
	// did (side calls, other endpoints).
	Rule int
	// Status is the HTTP status the server answered with.
	Status int
	// Disconnected is true when the client went away before a streamed reply
	// finished (for example after the user pressed Escape).
	Disconnected bool
}

// MessagesRequest is the part of a Messages API request body the fake reads.
type MessagesRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system,omitempty"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools,omitempty"`
}

// Message is one conversation turn. Content is always a list of blocks; the
// string shorthand the API also accepts is decoded as one text block.
type Message struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Content is a message's list of content blocks.
type Content []ContentBlock

// UnmarshalJSON accepts both the string and the block-list forms.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = Content{{Type: "text", Text: s}}
		return nil
	}
	var blocks []ContentBlock
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	*c = blocks
	return nil
}

// ContentBlock is a text, tool_use or tool_result block (other types keep
// only Type).
type ContentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// ResultText returns a tool_result block's content as plain text, whichever of
// the string or block-list forms the client used.
func (b ContentBlock) ResultText() string {
	var c Content
	if len(b.Content) == 0 || json.Unmarshal(b.Content, &c) != nil {
		return ""
	}
	var sb strings.Builder
	for _, x := range c {
		sb.WriteString(x.Text)
	}
	return sb.String()
}

// Tool is a tool the client declares.
type Tool struct {
	Name string `json:"name"`
}

// lastUser returns the last message with role "user". Claude Code may put
// other roles (a mid-conversation "system" message) after it.
func (r *MessagesRequest) lastUser() *Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return &r.Messages[i]
		}
	}
	return nil
}

// LastUserText is what the user typed last: the last text block of the
// latest user message, leaving out the <system-reminder> blocks the client
// adds and the "[Request interrupted by user...]" marker it puts before a
// prompt typed after an interruption. Only the last block counts because the
// client merges consecutive user turns into one message (a prompt whose
// request failed stays in the history, and the next prompt is appended to
// it). It is empty for a message that only carries tool results.
func (r *MessagesRequest) LastUserText() string {
	m := r.lastUser()
	if m == nil {
		return ""
	}
	for i := len(m.Content) - 1; i >= 0; i-- {
		b := m.Content[i]
		if b.Type != "text" {
			continue
		}
		t := strings.TrimSpace(b.Text)
		if strings.HasPrefix(t, "<system-reminder>") {
			continue
		}
		for strings.HasPrefix(t, "[Request interrupted by user") {
			end := strings.Index(t, "]")
			if end < 0 {
				break
			}
			t = strings.TrimSpace(t[end+1:])
		}
		if t != "" {
			return t
		}
	}
	return ""
}

// LastToolResult returns the first tool_result block of the latest user
// message, or nil when that message carries none.
func (r *MessagesRequest) LastToolResult() *ContentBlock {
	m := r.lastUser()
	if m == nil {
		return nil
	}
	for i := range m.Content {
		if m.Content[i].Type == "tool_result" {
			return &m.Content[i]
		}
	}
	return nil
}

// ToolUse finds the tool_use block with the given id in the conversation.
func (r *MessagesRequest) ToolUse(id string) *ContentBlock {
	for i := range r.Messages {
		for j := range r.Messages[i].Content {
			b := &r.Messages[i].Content[j]
			if b.Type == "tool_use" && b.ID == id {
				return b
			}
		}
	}
	return nil
}

// HasTool reports whether the request declares a tool with this name.
func (r *MessagesRequest) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// SystemText is the system prompt as plain text, whichever form it was sent in.
func (r *MessagesRequest) SystemText() string {
	if len(r.System) == 0 {
		return ""
	}
	var c Content
	if json.Unmarshal(r.System, &c) != nil {
		return ""
	}
	var parts []string
	for _, b := range c {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}
