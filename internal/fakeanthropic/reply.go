package fakeanthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// block is one content block of a reply as it appears in the final message.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

// plan is a Reply resolved for one request: ids assigned, blocks built.
type plan struct {
	reply  Reply
	msg    message
	blocks []block
}

func (s *Server) plan(r Reply, req *MessagesRequest, inputTokens int) plan {
	p := plan{reply: r}
	if r.Thinking != "" {
		th, sig := r.Thinking, "fake-signature"
		p.blocks = append(p.blocks, block{Type: "thinking", Thinking: &th, Signature: &sig})
	}
	if r.Text != "" || len(r.ToolUses) == 0 {
		t := r.Text
		p.blocks = append(p.blocks, block{Type: "text", Text: &t})
	}
	for _, tu := range r.ToolUses {
		id := tu.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake_%04d", s.nextID())
		}
		in := tu.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		p.blocks = append(p.blocks, block{Type: "tool_use", ID: id, Name: tu.Name, Input: in})
	}
	stop := r.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(r.ToolUses) > 0 {
			stop = "tool_use"
		}
	}
	out := 0
	for _, b := range p.blocks {
		out += tokens(deref(b.Text)) + tokens(deref(b.Thinking)) + tokens(string(b.Input))
	}
	p.msg = message{
		ID: fmt.Sprintf("msg_fake_%04d", s.nextID()), Type: "message", Role: "assistant",
		Model: req.Model, Content: p.blocks, StopReason: &stop,
		Usage: usage{InputTokens: inputTokens, OutputTokens: max(out, 1)},
	}
	return p
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// tokens is a rough token count (four bytes a token), enough for the usage
// figures Claude Code shows.
func tokens(s string) int { return (len(s) + 3) / 4 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // Best effort: the client may be gone.
}

func writeAPIError(w http.ResponseWriter, e *APIError, requestID string) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	if e.NoRetry {
		w.Header().Set("X-Should-Retry", "false")
	}
	writeJSON(w, e.Status, errorBody(e, requestID))
}

func errorBody(e *APIError, requestID string) map[string]any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": e.Type, "message": e.Message},
		"request_id": requestID,
	}
}

// sse writes server-sent events and flushes each one.
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func (e sse) event(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return err
	}
	e.fl.Flush()
	return nil
}

// stream writes p as the API's event stream. It returns ctx.Err() when the
// client disconnects part-way.
func (p plan) stream(ctx context.Context, w http.ResponseWriter) error {
	fl, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("fakeanthropic: response writer cannot flush")
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := sse{w: w, fl: fl}
	wait := func(d time.Duration) error {
		if d <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	start := p.msg
	start.Content = []block{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	if err := e.event("message_start", map[string]any{"type": "message_start", "message": start}); err != nil {
		return err
	}
	if err := e.event("ping", map[string]string{"type": "ping"}); err != nil {
		return err
	}
	if err := wait(p.reply.StartDelay); err != nil {
		return err
	}
	if p.reply.Error != nil && p.reply.Error.InStream {
		return e.event("error", errorBody(p.reply.Error, p.msg.ID))
	}
	for i, b := range p.blocks {
		head := b
		var deltas []map[string]string
		switch b.Type {
		case "text":
			empty := ""
			head.Text = &empty
			for _, c := range chunks(*b.Text, p.reply.ChunkRunes) {
				deltas = append(deltas, map[string]string{"type": "text_delta", "text": c})
			}
		case "thinking":
			empty := ""
			head.Thinking, head.Signature = &empty, &empty
			for _, c := range chunks(*b.Thinking, p.reply.ChunkRunes) {
				deltas = append(deltas, map[string]string{"type": "thinking_delta", "thinking": c})
			}
			deltas = append(deltas, map[string]string{"type": "signature_delta", "signature": *b.Signature})
		case "tool_use":
			head.Input = json.RawMessage("{}")
			for _, c := range chunks(string(b.Input), 16) {
				deltas = append(deltas, map[string]string{"type": "input_json_delta", "partial_json": c})
			}
		}
		if err := e.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": head}); err != nil {
			return err
		}
		for _, d := range deltas {
			if err := wait(p.reply.Delay); err != nil {
				return err
			}
			if err := e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}); err != nil {
				return err
			}
		}
		if err := e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}); err != nil {
			return err
		}
	}
	if err := e.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": *p.msg.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": p.msg.Usage.OutputTokens},
	}); err != nil {
		return err
	}
	return e.event("message_stop", map[string]string{"type": "message_stop"})
}

// chunks splits s into deltas: n runes each, or after each space when n is 0.
func chunks(s string, n int) []string {
	if s == "" {
		return nil
	}
	var out []string
	if n <= 0 {
		for s != "" {
			i := strings.IndexByte(s, ' ')
			if i < 0 {
				out = append(out, s)
				break
			}
			out = append(out, s[:i+1])
			s = s[i+1:]
		}
		return out
	}
	for s != "" {
		end, count := 0, 0
		for end < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			count++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
