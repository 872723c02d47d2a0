package fakeopenai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// stream writes one Responses API event stream. Every event carries the
// type, a sequence_number and the fields the real API sends for it.
type stream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	seq     int
	resp    map[string]any // the response object, updated as the stream goes
}

// event writes one SSE event and flushes it. The error is the client's:
// a write after it went away.
func (s *stream) event(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = s.seq
	s.seq++
	data, err := marshal(fields)
	if err != nil {
		return fmt.Errorf("fakeopenai: encoding %s event: %w", typ, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, data); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}

// marshal encodes v as compact JSON without escaping <, > and &, as the
// real API does (Go's default would turn "> file" into "\u003e file").
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// newResponse is the response object of response.created, as the real API
// sends it (status in_progress, empty output, no usage yet).
func newResponse(id, model string, created int64) map[string]any {
	return map[string]any{
		"id":                   id,
		"object":               "response",
		"created_at":           created,
		"status":               "in_progress",
		"error":                nil,
		"incomplete_details":   nil,
		"instructions":         nil,
		"max_output_tokens":    nil,
		"model":                model,
		"output":               []any{},
		"parallel_tool_calls":  true,
		"previous_response_id": nil,
		"reasoning":            map[string]any{"effort": nil, "summary": nil},
		"store":                false,
		"temperature":          1.0,
		"text":                 map[string]any{"format": map[string]any{"type": "text"}},
		"tool_choice":          "auto",
		"tools":                []any{},
		"top_p":                1.0,
		"truncation":           "disabled",
		"usage":                nil,
		"user":                 nil,
		"metadata":             map[string]any{},
	}
}

// usage is a plausible token count for the completed response.
func usage(inputBytes int, output string) map[string]any {
	in := inputBytes/4 + 1
	out := utf8.RuneCountInString(output)/4 + 1
	return map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": 0},
		"output_tokens":         out,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          in + out,
	}
}

// chunks splits s into pieces of n runes.
func chunks(s string, n int) []string {
	if n <= 0 {
		n = 16
	}
	var out []string
	for len(s) > 0 {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// sleep waits d or until ctx is done, reporting whether the full time passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// begin writes response.created and response.in_progress.
func (s *stream) begin() error {
	if err := s.event("response.created", map[string]any{"response": s.resp}); err != nil {
		return err
	}
	return s.event("response.in_progress", map[string]any{"response": s.resp})
}

// complete writes response.completed with the finished output and usage.
func (s *stream) complete(output []any, u map[string]any) error {
	s.resp["status"] = "completed"
	s.resp["output"] = output
	s.resp["usage"] = u
	return s.event("response.completed", map[string]any{"response": s.resp})
}

// message streams an assistant message item at output index 0.
func (s *stream) message(ctx context.Context, id, text string, chunkRunes int, delay time.Duration) (map[string]any, error) {
	inProgress := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
	if err := s.event("response.output_item.added", map[string]any{"output_index": 0, "item": inProgress}); err != nil {
		return nil, err
	}
	emptyPart := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
	if err := s.event("response.content_part.added", map[string]any{
		"item_id": id, "output_index": 0, "content_index": 0, "part": emptyPart,
	}); err != nil {
		return nil, err
	}
	for i, piece := range chunks(text, chunkRunes) {
		if i > 0 && !sleep(ctx, delay) {
			return nil, ctx.Err()
		}
		if err := s.event("response.output_text.delta", map[string]any{
			"item_id": id, "output_index": 0, "content_index": 0, "delta": piece, "logprobs": []any{},
		}); err != nil {
			return nil, err
		}
	}
	if err := s.event("response.output_text.done", map[string]any{
		"item_id": id, "output_index": 0, "content_index": 0, "text": text, "logprobs": []any{},
	}); err != nil {
		return nil, err
	}
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	if err := s.event("response.content_part.done", map[string]any{
		"item_id": id, "output_index": 0, "content_index": 0, "part": part,
	}); err != nil {
		return nil, err
	}
	done := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant", "content": []any{
		map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}},
	}}
	if err := s.event("response.output_item.done", map[string]any{"output_index": 0, "item": done}); err != nil {
		return nil, err
	}
	return done, nil
}

// functionCall streams a function_call item at output index 0.
func (s *stream) functionCall(id, callID, name, args string) (map[string]any, error) {
	item := map[string]any{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": callID, "name": name}
	if err := s.event("response.output_item.added", map[string]any{"output_index": 0, "item": item}); err != nil {
		return nil, err
	}
	for _, piece := range chunks(args, 24) {
		if err := s.event("response.function_call_arguments.delta", map[string]any{
			"item_id": id, "output_index": 0, "delta": piece,
		}); err != nil {
			return nil, err
		}
	}
	if err := s.event("response.function_call_arguments.done", map[string]any{
		"item_id": id, "output_index": 0, "arguments": args,
	}); err != nil {
		return nil, err
	}
	done := map[string]any{"id": id, "type": "function_call", "status": "completed", "arguments": args, "call_id": callID, "name": name}
	if err := s.event("response.output_item.done", map[string]any{"output_index": 0, "item": done}); err != nil {
		return nil, err
	}
	return done, nil
}

// localShellCall streams a local_shell_call item, for clients that offer the
// built-in local_shell tool instead of a shell function.
func (s *stream) localShellCall(id, callID string, command []string, workdir string) (map[string]any, error) {
	action := map[string]any{"type": "exec", "command": command}
	if workdir != "" {
		action["working_directory"] = workdir
	}
	item := map[string]any{"id": id, "type": "local_shell_call", "status": "in_progress", "call_id": callID, "action": action}
	if err := s.event("response.output_item.added", map[string]any{"output_index": 0, "item": item}); err != nil {
		return nil, err
	}
	done := map[string]any{"id": id, "type": "local_shell_call", "status": "completed", "call_id": callID, "action": action}
	if err := s.event("response.output_item.done", map[string]any{"output_index": 0, "item": done}); err != nil {
		return nil, err
	}
	return done, nil
}
