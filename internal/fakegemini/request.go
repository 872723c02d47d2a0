package fakegemini

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one HTTP request the server received, kept for assertions.
// For the model methods (generateContent, streamGenerateContent,
// countTokens) the JSON body is decoded into the fields below; for any
// other path only the HTTP part is filled in.
type Request struct {
	Seq    int // 1-based arrival order over all paths
	Time   time.Time
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte

	// Decoded from the path: models/MODEL:METHOD.
	Model string
	// APIMethod is generateContent, streamGenerateContent, countTokens,
	// or "" for a path that names none.
	APIMethod string

	// Decoded from a generateContent body.
	Contents []Content
	// Tools names the function declarations offered, in request order.
	Tools []string
	// Schema is the response schema of a request that asks for JSON
	// (responseJsonSchema or responseSchema), as sent; nil otherwise.
	Schema json.RawMessage
	Kind   Kind

	// Filled in once the answer has been written.
	Rule    string // Rule.Name that answered; "" for built-in answers
	Status  int    // HTTP status written
	Aborted bool   // the client went away before the stream finished
}

// Kind says what a request is for.
type Kind string

// Request kinds.
const (
	KindOther Kind = "other" // not a generateContent call (countTokens, an unknown path)
	KindTurn  Kind = "turn"  // a conversation turn (user prompt or tool continuation)
	KindSide  Kind = "side"  // a JSON side call: routing, next-speaker check, ...
)

// Content is one entry of a request's contents: a user or model message.
type Content struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one part of a content entry. Only the fields the fake needs are
// decoded.
type Part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *FunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *FunctionResponse `json:"functionResponse,omitempty"`
}

// FunctionCall is a model's request to run a tool.
type FunctionCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

// FunctionResponse is the result of a tool the client sends back.
type FunctionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response,omitempty"`
}

// Text joins the text parts of a content entry (thoughts left out).
func (c Content) Text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// FunctionResponses returns the content's function responses.
func (c Content) FunctionResponses() []FunctionResponse {
	var out []FunctionResponse
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			out = append(out, *p.FunctionResponse)
		}
	}
	return out
}

// Last is the last content entry, or the zero entry for none.
func (r *Request) Last() Content {
	if len(r.Contents) == 0 {
		return Content{}
	}
	return r.Contents[len(r.Contents)-1]
}

// Prompt is the newest prompt: the last text part of the last content
// when that is a user prompt (not a tool's result), else "". The CLI
// merges prompts whose turn was cancelled into one content with the next
// one, so earlier text parts of the same content are older prompts.
func (r *Request) Prompt() string {
	last := r.Last()
	if last.Role != "user" || len(last.FunctionResponses()) > 0 {
		return ""
	}
	return lastText(last)
}

// LastUserText is the last text part of the last user content that holds
// text (the newest prompt, also in a tool continuation), or "".
func (r *Request) LastUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if c := r.Contents[i]; c.Role == "user" {
			if t := lastText(c); t != "" {
				return t
			}
		}
	}
	return ""
}

func lastText(c Content) string {
	for i := len(c.Parts) - 1; i >= 0; i-- {
		if p := c.Parts[i]; p.Text != "" && !p.Thought {
			return p.Text
		}
	}
	return ""
}

// ToolResults returns the function responses that follow the last user
// prompt: the results the model is being asked to continue from.
func (r *Request) ToolResults() []FunctionResponse {
	var out []FunctionResponse
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role == "user" && c.Text() != "" && len(c.FunctionResponses()) == 0 {
			break
		}
		out = append(c.FunctionResponses(), out...)
	}
	return out
}

// HasTool reports whether the request offered a function with this name.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// generateBody is the part of a generateContent body the fake reads.
type generateBody struct {
	Contents []Content `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

// parsePath reads models/MODEL:METHOD from a path such as
// /v1beta/models/gemini-2.5-flash:streamGenerateContent.
func (r *Request) parsePath() {
	i := strings.LastIndex(r.Path, "/models/")
	if i < 0 {
		return
	}
	model, method, ok := strings.Cut(r.Path[i+len("/models/"):], ":")
	if !ok {
		return
	}
	r.Model, r.APIMethod = model, method
}

// decodeGenerate fills the generateContent fields of r from its body.
func (r *Request) decodeGenerate() error {
	var body generateBody
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return err
	}
	r.Contents = body.Contents
	for _, t := range body.Tools {
		for _, f := range t.FunctionDeclarations {
			r.Tools = append(r.Tools, f.Name)
		}
	}
	gc := body.GenerationConfig
	switch {
	case len(gc.ResponseJSONSchema) > 0 && string(gc.ResponseJSONSchema) != "null":
		r.Schema = gc.ResponseJSONSchema
	case len(gc.ResponseSchema) > 0 && string(gc.ResponseSchema) != "null":
		r.Schema = gc.ResponseSchema
	}
	r.Kind = KindTurn
	if r.Schema != nil || gc.ResponseMimeType == "application/json" {
		r.Kind = KindSide
	}
	return nil
}
