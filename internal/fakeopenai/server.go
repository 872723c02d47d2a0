package fakeopenai

import (
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
)

// Options tune a Server. The zero value is ready to use.
type Options struct {
	// Title is the thread title answered to Codex's title side call;
	// "" means "Fake task".
	Title string
	// Models are the ids GET /v1/models lists; nil means {"gpt-test"}.
	Models []string
	// ModelsDelay holds each GET /v1/models answer this long (a slow
	// start-up: Codex waits for the list before it takes a prompt).
	ModelsDelay time.Duration
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
}

// Server is a running fake Responses API on 127.0.0.1.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT (no /v1).
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
		panic(fmt.Sprintf("fakeopenai: listening on 127.0.0.1: %v", err))
	}
	return serve(ln, script, opts)
}

// Listen starts a fake on addr (host:port; port 0 picks a free one), for the
// standalone runner, which needs a fixed port across Codex restarts.
func Listen(addr string, script Script, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakeopenai: listening on %s: %w", addr, err)
	}
	return serve(ln, script, opts), nil
}

func serve(ln net.Listener, script Script, opts Options) *Server {
	if opts.Title == "" {
		opts.Title = "Fake task"
	}
	if opts.Models == nil {
		opts.Models = []string{"gpt-test"}
	}
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

// BaseURL is the API base Codex's model provider points at: URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

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

// WaitRequest blocks until a received request satisfies match (requests
// already received count) and returns a copy of the first that does. A
// request is offered again once its answer is written, so match can wait for
// Status or Aborted. It returns ctx's error when ctx ends first.
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
			return Request{}, fmt.Errorf("fakeopenai: waiting for a request: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes WaitRequest callers; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// record stores r and returns its sequence number.
func (s *Server) record(r *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	s.notifyLocked()
}

// finish stores the outcome of r.
func (s *Server) finish(r *Request, rule string, status int, aborted bool) {
	s.mu.Lock()
	r.Rule, r.Status, r.Aborted = rule, status, aborted
	s.notifyLocked()
	s.mu.Unlock()
	s.log.Info("fakeopenai request",
		"seq", r.Seq, "method", r.Method, "path", r.Path, "kind", r.Kind, "rule", rule,
		"status", status, "aborted", aborted, "last_user", clip(r.LastUserText(), 80))
}

// nextID returns a fresh id with the given prefix (resp, msg, fc, lsh).
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
	req := &Request{Time: time.Now(), Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body, Kind: KindOther}
	responses := hr.Method == http.MethodPost && strings.HasSuffix(hr.URL.Path, "/responses")
	// The request is decoded before it is recorded: once recorded, readers
	// copy it under s.mu, and only finish writes to it again, under s.mu.
	var decodeErr error
	if err == nil && responses {
		decodeErr = req.decodeResponses()
	}
	s.record(req)
	if err != nil {
		s.writeError(w, req, "", http.StatusBadRequest, Reply{ErrorType: "invalid_request_error", ErrorMessage: "fakeopenai: reading body: " + err.Error()})
		return
	}
	switch {
	case responses:
		s.responses(w, hr, req, decodeErr)
	case hr.Method == http.MethodGet && strings.HasSuffix(hr.URL.Path, "/models"):
		s.models(w, hr, req)
	default:
		s.writeError(w, req, "", http.StatusNotFound, Reply{ErrorType: "invalid_request_error",
			ErrorMessage: fmt.Sprintf("fakeopenai: no route for %s %s", hr.Method, hr.URL.Path)})
	}
}

func (s *Server) models(w http.ResponseWriter, hr *http.Request, req *Request) {
	if d := s.opts.ModelsDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-hr.Context().Done():
		case <-s.ctx.Done():
		}
		t.Stop()
	}
	data := make([]map[string]any, 0, len(s.opts.Models))
	for _, id := range s.opts.Models {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "fakeopenai"})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data}) // Best effort: the client may be gone.
	s.finish(req, "", http.StatusOK, false)
}

// choose picks the reply and the name of the rule that gave it.
func (s *Server) choose(req *Request) (string, Reply) {
	if req.Kind == KindTitle {
		title, _ := json.Marshal(map[string]string{"title": s.opts.Title})
		return "", Text(string(title))
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
	return "", Text("fakeopenai: no scripted reply for: " + clip(req.LastUserText(), 200))
}

func (s *Server) responses(w http.ResponseWriter, hr *http.Request, req *Request, decodeErr error) {
	if err := decodeErr; err != nil {
		s.writeError(w, req, "", http.StatusBadRequest, Reply{ErrorType: "invalid_request_error",
			ErrorMessage: "fakeopenai: request body is not a Responses API request: " + err.Error()})
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

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Request-Id", s.nextID("req"))
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	st := &stream{w: w, flusher: flusher, resp: newResponse(s.nextID("resp"), req.Model, time.Now().Unix())}
	err := s.stream(ctx, st, req, reply)
	s.finish(req, rule, http.StatusOK, err != nil)
}

// stream writes the whole event stream for a 200 reply.
func (s *Server) stream(ctx context.Context, st *stream, req *Request, reply Reply) error {
	if err := st.begin(); err != nil {
		return err
	}
	if !sleep(ctx, reply.Delay) {
		return ctx.Err()
	}
	if reply.FailCode != "" {
		st.resp["status"] = "failed"
		st.resp["error"] = map[string]any{"code": reply.FailCode, "message": reply.ErrorMessage}
		return st.event("response.failed", map[string]any{"response": st.resp})
	}
	var item map[string]any
	var err error
	var text string
	if reply.Shell != nil {
		item, text, err = s.shell(st, req, reply.Shell)
	} else {
		text = reply.Text
		item, err = st.message(ctx, s.nextID("msg"), reply.Text, reply.ChunkRunes, reply.ChunkDelay)
	}
	if err != nil {
		return err
	}
	return st.complete([]any{item}, usage(len(req.Body), text))
}

// shell streams sh in the form the request's tools ask for and returns the
// item and its arguments text (for usage).
func (s *Server) shell(st *stream, req *Request, sh *Shell) (map[string]any, string, error) {
	escalate := sh.Justification != ""
	switch {
	case req.HasTool("local_shell") && !req.HasTool("exec_command") && !req.HasTool("shell") && !req.HasTool("shell_command"):
		item, err := st.localShellCall(s.nextID("lsh"), sh.CallID, []string{"bash", "-lc", sh.Command}, sh.Workdir)
		return item, sh.Command, err
	case req.HasTool("shell") && !req.HasTool("exec_command"):
		args := map[string]any{"command": []string{"bash", "-lc", sh.Command}}
		if sh.Workdir != "" {
			args["workdir"] = sh.Workdir
		}
		if escalate {
			args["sandbox_permissions"] = "require_escalated"
			args["justification"] = sh.Justification
		}
		return s.call(st, sh.CallID, "shell", args)
	case req.HasTool("shell_command") && !req.HasTool("exec_command"):
		args := map[string]any{"command": sh.Command}
		if sh.Workdir != "" {
			args["workdir"] = sh.Workdir
		}
		if escalate {
			args["sandbox_permissions"] = "require_escalated"
			args["justification"] = sh.Justification
		}
		return s.call(st, sh.CallID, "shell_command", args)
	default: // exec_command, what Codex 0.169 offers.
		args := map[string]any{"cmd": sh.Command}
		if sh.Workdir != "" {
			args["workdir"] = sh.Workdir
		}
		if escalate {
			args["sandbox_permissions"] = "require_escalated"
			args["justification"] = sh.Justification
		}
		return s.call(st, sh.CallID, "exec_command", args)
	}
}

func (s *Server) call(st *stream, callID, name string, args map[string]any) (map[string]any, string, error) {
	raw, err := marshal(args)
	if err != nil {
		return nil, "", fmt.Errorf("fakeopenai: encoding %s arguments: %w", name, err)
	}
	item, err := st.functionCall(s.nextID("fc"), callID, name, string(raw))
	return item, string(raw), err
}

// writeError answers with an OpenAI-style error body.
func (s *Server) writeError(w http.ResponseWriter, req *Request, rule string, status int, reply Reply) {
	if reply.RetryAfter > 0 {
		secs := int((reply.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.Header().Set("Retry-After-Ms", strconv.FormatInt(reply.RetryAfter.Milliseconds(), 10))
	}
	var code any
	if reply.ErrorCode != "" {
		code = reply.ErrorCode
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{ // Best effort: the client may be gone.
		"message": reply.ErrorMessage, "type": reply.ErrorType, "param": nil, "code": code,
	}})
	s.finish(req, rule, status, false)
}
