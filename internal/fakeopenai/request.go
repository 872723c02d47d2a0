package fakeopenai

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one HTTP request the server received, kept for assertions.
// For POST .../responses the JSON body is decoded into the fields below; for
// any other path only the HTTP part is filled in.
type Request struct {
	Seq    int // 1-based arrival order over all paths
	Time   time.Time
	Method string
	Path   string
	Header http.Header
	Body   []byte

	// Decoded from a Responses API body.
	Model string
	// Tools names the tools offered, in request order: the tools list and any
	// additional_tools input item, namespaces flattened (name, then members),
	// unnamed tools (web_search) by type.
	Tools []string
	Input []InputItem // the conversation Codex sent, additional_tools items left out
	Kind  Kind

	// Filled in once the answer has been written.
	Rule    string // Rule.Name that answered; "" for built-in answers
	Status  int    // HTTP status written
	Aborted bool   // the client went away before the stream finished
}

// Kind says what a Responses request is for.
type Kind string

// Request kinds.
const (
	KindOther Kind = "other" // not a Responses API call
	KindTurn  Kind = "turn"  // a conversation turn (user prompt or tool continuation)
	KindTitle Kind = "title" // Codex's side call that names the thread
)

// InputItem is one item of a Responses request's input array. Only the fields
// the fake needs are decoded; Raw keeps the item as sent.
type InputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role,omitempty"`
	Content []ContentPart   `json:"content,omitempty"`
	CallID  string          `json:"call_id,omitempty"`
	Name    string          `json:"name,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// ContentPart is one part of a message's content.
type ContentPart struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// Text joins the text parts of a message item.
func (it InputItem) Text() string {
	var b strings.Builder
	for _, p := range it.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

// OutputText returns a function_call_output's output as text: the string
// itself, or the text parts of the structured form.
func (it InputItem) OutputText() string {
	if len(it.Output) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(it.Output, &s) == nil {
		return s
	}
	var parts []ContentPart
	if json.Unmarshal(it.Output, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(it.Output)
}

// LastUserText is the text of the last user message in the input, or "".
func (r *Request) LastUserText() string {
	for i := len(r.Input) - 1; i >= 0; i-- {
		if it := r.Input[i]; it.Type == "message" && it.Role == "user" {
			return it.Text()
		}
	}
	return ""
}

// Last is the last input item, or the zero item for an empty input.
func (r *Request) Last() InputItem {
	if len(r.Input) == 0 {
		return InputItem{}
	}
	return r.Input[len(r.Input)-1]
}

// ToolOutputs returns the tool outputs (function_call_output and
// custom_tool_call_output items) that follow the last user message: the
// results the model is being asked to continue from.
func (r *Request) ToolOutputs() []InputItem {
	var outs []InputItem
	for i := len(r.Input) - 1; i >= 0; i-- {
		it := r.Input[i]
		if it.Type == "message" && it.Role == "user" {
			break
		}
		if strings.HasSuffix(it.Type, "call_output") {
			outs = append([]InputItem{it}, outs...)
		}
	}
	return outs
}

// HasTool reports whether the request offered a tool with this name.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// titlePrompt starts the user message of Codex's thread-title side call.
const titlePrompt = "Generate a concise, single-line task title"

// responsesBody is the part of a Responses API request body the fake reads.
type responsesBody struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
	Tools []toolSpec        `json:"tools"`
}

// toolSpec is one entry of a tools list; a namespace nests more.
type toolSpec struct {
	Type  string     `json:"type"`
	Name  string     `json:"name"`
	Tools []toolSpec `json:"tools"`
}

// appendToolNames flattens specs into names: a tool by its name (by its type
// when unnamed, e.g. web_search), a namespace by its name and then its tools.
func appendToolNames(names []string, specs []toolSpec) []string {
	for _, t := range specs {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		names = append(names, name)
		names = appendToolNames(names, t.Tools)
	}
	return names
}

// decodeResponses fills the Responses fields of r from its body. A body that
// is not valid JSON leaves them empty; the handler answers 400 for it.
func (r *Request) decodeResponses() error {
	var body responsesBody
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return err
	}
	r.Model = body.Model
	r.Tools = appendToolNames(r.Tools, body.Tools)
	for _, raw := range body.Input {
		var it InputItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return err
		}
		it.Raw = raw
		if it.Type == "additional_tools" {
			// Newer models get their tools as an input item of namespaces.
			var extra struct {
				Tools []toolSpec `json:"tools"`
			}
			if err := json.Unmarshal(raw, &extra); err != nil {
				return err
			}
			r.Tools = appendToolNames(r.Tools, extra.Tools)
			continue
		}
		r.Input = append(r.Input, it)
	}
	r.Kind = KindTurn
	if r.isTitle() {
		r.Kind = KindTitle
	}
	return nil
}

// isTitle recognises the thread-title side call, by the turn metadata header
// Codex sends (thread_source) or, failing that, by its prompt.
func (r *Request) isTitle() bool {
	if meta := r.Header.Get("X-Codex-Turn-Metadata"); meta != "" {
		var m struct {
			ThreadSource string `json:"thread_source"`
		}
		if json.Unmarshal([]byte(meta), &m) == nil && m.ThreadSource != "" {
			return m.ThreadSource == "thread_title"
		}
	}
	return strings.HasPrefix(r.LastUserText(), titlePrompt)
}
