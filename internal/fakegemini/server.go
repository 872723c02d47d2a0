package fakegemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Options tune a Server. The zero value is ready to use.
type Options struct {
	// ModelVersion is the modelVersion every answer names; "" means the
	// model of the request's path.
	ModelVersion string
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
}

// Server is a running fake Gemini API on 127.0.0.1.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT: the value of
	// GOOGLE_GEMINI_BASE_URL (the CLI adds /v1beta/models/...).
	URL string

	srv    *httptest.Server
	script Script
	opts   Options
	log    *slog.Logger
	ctx    context.Context // cancelled by Close, ends streams in progress
	cancel context.CancelFunc

	mu      sync.Mutex
	reqs    []*Request
	changed chan struct{} // closed and replaced whenever reqs change
	ids     int
	used    map[int]int // how often each rule with Times answered
}

// NewServer starts a fake on a free loopback port. Close it when done.
// It panics, like httptest.NewServer, when no loopback port can be had.
func NewServer(script Script, opts Options) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("fakegemini: listening on 127.0.0.1: %v", err))
	}
	return serve(ln, script, opts)
}

// Listen starts a fake on addr (host:port; port 0 picks a free one), for
// the standalone runner.
func Listen(addr string, script Script, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakegemini: listening on %s: %w", addr, err)
	}
	return serve(ln, script, opts), nil
}

func serve(ln net.Listener, script Script, opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{script: script, opts: opts, log: log, ctx: ctx, cancel: cancel, changed: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.Listener = ln
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close ends streams in progress and stops the server, waiting for handlers.
func (s *Server) Close() {
	s.cancel()
	s.srv.Close()
}

// Requests returns copies of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
	}
	return out
}

// Turns returns the turn requests (prompts and tool continuations)
// received so far, in order: Requests without side calls and countTokens.
func (s *Server) Turns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindTurn {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequest blocks until a received request satisfies match (requests
// already received count) and returns a copy of the first that does. A
// request is offered again once its answer is written, so match can wait
// for Status or Aborted. It returns ctx's error when ctx ends first.
func (s *Server) WaitRequest(ctx context.Context, match func(Request) bool) (Request, error) {
	for {
		s.mu.Lock()
		changed := s.changed
		for _, r := range s.reqs {
			if match(*r) {
				found := *r
				s.mu.Unlock()
				return found, nil
			}
		}
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Request{}, fmt.Errorf("fakegemini: waiting for a request: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes WaitRequest callers; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	s.notifyLocked()
}

func (s *Server) finish(r *Request, rule string, status int, aborted bool) {
	s.mu.Lock()
	r.Rule, r.Status, r.Aborted = rule, status, aborted
	s.notifyLocked()
	s.mu.Unlock()
	s.log.Info("fakegemini request",
		"seq", r.Seq, "method", r.Method, "path", r.Path, "kind", r.Kind, "rule", rule,
		"status", status, "aborted", aborted, "last_user", clip(r.LastUserText(), 80))
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_fake%04d", prefix, s.ids)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	req := &Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Header: hr.Header.Clone(), Body: body, Kind: KindOther}
	req.parsePath()
	generate := hr.Method == http.MethodPost && (req.APIMethod == "generateContent" || req.APIMethod == "streamGenerateContent")
	// The request is decoded before it is recorded: once recorded, readers
	// (Requests, WaitRequest) copy it under s.mu, and only finish writes
	// to it again, under s.mu too.
	var decodeErr error
	if err == nil && generate {
		decodeErr = req.decodeGenerate()
	}
	s.record(req)
	if err != nil {
		s.writeError(w, req, "", http.StatusBadRequest, Reply{ErrorStatus: "INVALID_ARGUMENT", ErrorMessage: "fakegemini: reading body: " + err.Error()})
		return
	}
	switch {
	case generate:
		s.generate(w, hr, req, decodeErr)
	case hr.Method == http.MethodPost && req.APIMethod == "countTokens":
		s.writeJSON(w, http.StatusOK, map[string]any{"totalTokens": len(body)/4 + 1})
		s.finish(req, "", http.StatusOK, false)
	default:
		s.writeError(w, req, "", http.StatusNotFound, Reply{ErrorStatus: "NOT_FOUND",
			ErrorMessage: fmt.Sprintf("fakegemini: no route for %s %s", hr.Method, hr.URL.Path)})
	}
}

// choose picks the reply and the name of the rule that gave it.
func (s *Server) choose(req *Request) (string, Reply) {
	if req.Kind == KindSide {
		return "", Text(SideAnswer(req.Schema))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, rule := range s.script {
		if rule.Match == nil || !rule.Match(req) {
			continue
		}
		if rule.Times > 0 {
			if s.used == nil {
				s.used = map[int]int{}
			}
			if s.used[i] >= rule.Times {
				continue
			}
			s.used[i]++
		}
		return rule.Name, rule.Reply
	}
	return "", Text("fakegemini: no scripted reply for: " + clip(req.LastUserText(), 200))
}

func (s *Server) generate(w http.ResponseWriter, hr *http.Request, req *Request, decodeErr error) {
	if err := decodeErr; err != nil {
		s.writeError(w, req, "", http.StatusBadRequest, Reply{ErrorStatus: "INVALID_ARGUMENT",
			ErrorMessage: "fakegemini: request body is not a generateContent request: " + err.Error()})
		return
	}
	rule, reply := s.choose(req)
	if reply.Status != 0 && reply.Status != http.StatusOK {
		s.writeError(w, req, rule, reply.Status, reply)
		return
	}
	ctx, cancel := context.WithCancel(hr.Context())
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	model := s.opts.ModelVersion
	if model == "" {
		model = req.Model
	}
	a := &answer{model: model, id: s.nextID("resp"), promptTokens: len(req.Body)/4 + 1}
	if !sleep(ctx, reply.Delay) {
		s.finish(req, rule, http.StatusOK, true)
		return
	}
	if req.APIMethod == "generateContent" {
		// One response with the whole answer.
		s.writeJSON(w, http.StatusOK, a.chunk(reply.parts(s), "STOP", utf8.RuneCountInString(reply.Text)))
		s.finish(req, rule, http.StatusOK, false)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	err := a.stream(ctx, w, flusher, reply, s)
	s.finish(req, rule, http.StatusOK, err != nil)
	if reply.Cut {
		// Close the connection mid-stream, as a dying server would.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close() // Best effort: the point is to drop it.
			}
		}
	}
}

// parts is the content parts of a whole (non-streamed) reply.
func (r Reply) parts(s *Server) []map[string]any {
	var parts []map[string]any
	if r.Text != "" || r.Call == nil {
		parts = append(parts, map[string]any{"text": r.Text})
	}
	if r.Call != nil {
		parts = append(parts, callPart(r.Call, s))
	}
	return parts
}

func callPart(c *FunctionCall, s *Server) map[string]any {
	fc := map[string]any{"name": c.Name, "args": c.Args}
	if c.ID != "" {
		fc["id"] = c.ID
	} else {
		fc["id"] = s.nextID("call")
	}
	return map[string]any{"functionCall": fc}
}

// answer builds the GenerateContentResponse objects of one answer.
type answer struct {
	model        string
	id           string
	promptTokens int
}

// chunk is one GenerateContentResponse: the parts, finishReason ("" for
// a chunk mid-stream) and usage.
func (a *answer) chunk(parts []map[string]any, finish string, outTokens int) map[string]any {
	cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	usage := map[string]any{"promptTokenCount": a.promptTokens}
	if finish != "" {
		usage["candidatesTokenCount"] = outTokens/4 + 1
		usage["totalTokenCount"] = a.promptTokens + outTokens/4 + 1
	} else {
		usage["totalTokenCount"] = a.promptTokens
	}
	return map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": a.model, "responseId": a.id}
}

// stream writes reply as SSE chunks ("data: {...}" lines).
func (a *answer) stream(ctx context.Context, w io.Writer, flusher http.Flusher, reply Reply, s *Server) error {
	send := func(v map[string]any) error {
		data, err := marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", data); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	}
	pieces := chunks(reply.Text, reply.ChunkRunes)
	total := utf8.RuneCountInString(reply.Text)
	for i, piece := range pieces {
		if i > 0 && !sleep(ctx, reply.ChunkDelay) {
			return ctx.Err()
		}
		finish := ""
		if i == len(pieces)-1 && reply.Call == nil && !reply.Cut {
			finish = "STOP"
		}
		if err := send(a.chunk([]map[string]any{{"text": piece}}, finish, total)); err != nil {
			return err
		}
		if reply.Cut {
			return nil
		}
	}
	if reply.Call != nil {
		return send(a.chunk([]map[string]any{callPart(reply.Call, s)}, "STOP", total))
	}
	if len(pieces) == 0 {
		return send(a.chunk([]map[string]any{{"text": ""}}, "STOP", 0))
	}
	return nil
}

// writeError answers with a google.rpc.Status error body.
func (s *Server) writeError(w http.ResponseWriter, req *Request, rule string, status int, reply Reply) {
	e := map[string]any{"code": status, "message": reply.ErrorMessage, "status": reply.ErrorStatus}
	if reply.RetryAfter > 0 {
		secs := int((reply.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": strconv.Itoa(secs) + "s"}}
	}
	if status == 400 || status == 401 {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}}
	}
	s.writeJSON(w, status, map[string]any{"error": e})
	s.finish(req, rule, status, false)
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := marshal(v)
	if err != nil {
		data = []byte(`{"error":{"code":500,"message":"fakegemini: encoding","status":"INTERNAL"}}`)
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(data) // Best effort: the client may be gone.
}

// marshal encodes v as compact JSON without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// chunks splits s into pieces of n runes (16 when n <= 0).
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

// SideAnswer is the JSON object answering a side call whose response
// schema is schema: each property the schema names gets a value that fits
// it. Known properties get the answer that lets the CLI go on:
// model_choice "flash" (the router), next_speaker "user" (a turn ends
// after the model's answer), reasoning a short text; an enum its first
// value, a string "fake", a number 0, a boolean false, an array empty.
func SideAnswer(schema json.RawMessage) string {
	var sc jsonSchema
	_ = json.Unmarshal(schema, &sc) // Best effort: an unreadable schema gets {}.
	v := sc.value("")
	data, err := marshal(v)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// jsonSchema is the part of a JSON schema (or a Gemini Schema, whose types
// are upper case) SideAnswer reads.
type jsonSchema struct {
	Type       any                    `json:"type"`
	Enum       []any                  `json:"enum"`
	Properties map[string]*jsonSchema `json:"properties"`
}

var sideKnown = map[string]any{
	"model_choice":     "flash",
	"next_speaker":     "user",
	"complexity_score": 10,
	"reasoning":        "fakegemini: a side call answered by the fake",
}

func (sc *jsonSchema) value(name string) any {
	if v, ok := sideKnown[name]; ok {
		return v
	}
	if sc == nil {
		return nil
	}
	if len(sc.Enum) > 0 {
		return sc.Enum[0]
	}
	typ := ""
	switch t := sc.Type.(type) {
	case string:
		typ = strings.ToLower(t)
	case []any:
		if len(t) > 0 {
			typ, _ = t[0].(string)
			typ = strings.ToLower(typ)
		}
	}
	if typ == "" && sc.Properties != nil {
		typ = "object"
	}
	switch typ {
	case "object":
		out := map[string]any{}
		for k, p := range sc.Properties {
			out[k] = p.value(k)
		}
		return out
	case "string":
		return "fake"
	case "number", "integer":
		return 0
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	return nil
}
