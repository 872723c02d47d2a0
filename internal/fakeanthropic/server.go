package fakeanthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultReply answers requests no rule matches, side calls included.
var DefaultReply = Reply{Text: "No scripted reply matched this request."}

// Server is a running fake. Its zero value is not usable: use [New] in tests
// or [Start] elsewhere, and Close it when done.
type Server struct {
	// URL is the base URL to give the client as ANTHROPIC_BASE_URL
	// ("http://127.0.0.1:PORT").
	URL string
	// ProxyURL is the loopback HTTP proxy that answers for the real API
	// hosts ("http://127.0.0.1:PORT"): give it as HTTPS_PROXY.
	ProxyURL string
	// CACertFile is the PEM file of the proxy's certificate authority: give
	// it as NODE_EXTRA_CA_CERTS.
	CACertFile string

	cfg   config
	api   *httptest.Server
	proxy *proxy
	dir   string

	mu      sync.Mutex
	rules   []Rule
	used    []int
	reqs    []Request
	changed chan struct{}
	ids     int
	closed  bool
}

type config struct {
	addr      string
	fallback  Reply
	onRequest func(Request)
}

// Option configures [Start] and [New].
type Option func(*config)

// WithAddr listens for the API on addr ("127.0.0.1:8080") instead of a free
// loopback port, so a client started by hand can keep one base URL.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithFallback sets the reply for requests no rule matches (default
// [DefaultReply]).
func WithFallback(r Reply) Option { return func(c *config) { c.fallback = r } }

// WithOnRequest calls f with each request once it has been answered (a
// stream: once it ended or the client went away), from the request's own
// goroutine. Tests pass t.Log-based loggers; the standalone command logs to a
// file.
func WithOnRequest(f func(Request)) Option { return func(c *config) { c.onRequest = f } }

// ErrClosed is returned by waits on a server that has been closed.
var ErrClosed = errors.New("fakeanthropic: server closed")

// New starts a server for a test and closes it in tb.Cleanup.
func New(tb testing.TB, rules []Rule, opts ...Option) *Server {
	tb.Helper()
	s, err := Start(rules, opts...)
	if err != nil {
		tb.Fatalf("fakeanthropic: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Start starts the API server and its proxy on loopback. The caller must
// Close it.
func Start(rules []Rule, opts ...Option) (*Server, error) {
	cfg := config{fallback: DefaultReply}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{cfg: cfg, changed: make(chan struct{})}
	s.SetRules(rules...)

	dir, err := os.MkdirTemp("", "fakeanthropic-")
	if err != nil {
		return nil, err
	}
	s.dir = dir
	ca, err := newCA()
	if err != nil {
		_ = os.RemoveAll(dir) // Best effort.
		return nil, err
	}
	s.CACertFile = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(s.CACertFile, ca.certPEM, 0o600); err != nil {
		_ = os.RemoveAll(dir) // Best effort.
		return nil, err
	}

	s.api = httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	if cfg.addr != "" {
		ln, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			_ = os.RemoveAll(dir) // Best effort.
			return nil, fmt.Errorf("fakeanthropic: listen on %s: %w", cfg.addr, err)
		}
		s.api.Listener.Close() // Best effort: replaced by ln.
		s.api.Listener = ln
	}
	s.api.Start()
	s.URL = s.api.URL

	s.proxy, err = startProxy(ca, http.HandlerFunc(s.serveHTTP))
	if err != nil {
		s.api.Close()
		_ = os.RemoveAll(dir) // Best effort.
		return nil, err
	}
	s.ProxyURL = s.proxy.url
	return s, nil
}

// Close stops both listeners, ends streams still running and removes the CA
// file.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.changed)
	s.mu.Unlock()
	s.api.CloseClientConnections()
	s.api.Close()
	s.proxy.close()
	_ = os.RemoveAll(s.dir) // Best effort: a temp dir.
}

// Env is the environment that points Claude Code at this server: the API base
// URL, a test API key, the proxy for the real API hosts (with the server's own
// address exempt) and the CA that proxy's certificates chain to.
func (s *Server) Env() []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + s.URL,
		"ANTHROPIC_API_KEY=" + TestAPIKey,
		"HTTPS_PROXY=" + s.ProxyURL,
		"HTTP_PROXY=" + s.ProxyURL,
		"NO_PROXY=127.0.0.1,localhost",
		"NODE_EXTRA_CA_CERTS=" + s.CACertFile,
	}
}

// TestAPIKey is the API key [Server.Env] gives the client. The server accepts
// any key; this one is shaped like a real one so the client's own checks pass.
const TestAPIKey = "sk-ant-api03-ptywright-fake-key-0123456789abcdefghijklmnop-AAAA"

// SetRules replaces the script. Requests already being answered finish with
// the rule they had.
func (s *Server) SetRules(rules ...Rule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append([]Rule(nil), rules...)
	s.used = make([]int, len(rules))
}

// Requests returns a copy of every request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// MessagesRequests returns the POST /v1/messages requests received so far.
func (s *Server) MessagesRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Messages != nil {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequest blocks until some request received so far (or later) satisfies
// ok, and returns it. Requests are offered to ok again when they finish, so
// ok can wait for a stream's end (Status set) or its cancellation
// (Disconnected).
func (s *Server) WaitRequest(ctx context.Context, ok func(Request) bool) (Request, error) {
	for {
		s.mu.Lock()
		for _, r := range s.reqs {
			if ok(r) {
				s.mu.Unlock()
				return r, nil
			}
		}
		ch, closed := s.changed, s.closed
		s.mu.Unlock()
		if closed {
			return Request{}, ErrClosed
		}
		select {
		case <-ctx.Done():
			return Request{}, ctx.Err()
		case <-ch:
		}
	}
}

// record appends r and returns its index; update changes it later. Both wake
// waiters.
func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	s.notifyLocked()
	return len(s.reqs) - 1
}

func (s *Server) update(i int, f func(*Request)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.reqs[i])
	s.notifyLocked()
}

func (s *Server) notifyLocked() {
	if s.closed {
		return
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return s.ids
}

// pick returns the first rule that matches req and has answers left, or -1
// and the fallback.
func (s *Server) pick(req *MessagesRequest) (int, Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.Times > 0 && s.used[i] >= r.Times {
			continue
		}
		if r.When.matches(req) {
			s.used[i]++
			return i, r.Reply
		}
	}
	return -1, s.cfg.fallback
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20)) // Best effort: a short body fails to decode below.
	rec := Request{
		Time: time.Now(), Method: r.Method, Host: r.Host, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), Body: body, Rule: -1,
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		i := s.record(rec)
		status := s.serveOther(w, r, body)
		s.finish(i, status, false)
		return
	}
	var req MessagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		i := s.record(rec)
		writeAPIError(w, &APIError{Status: 400, Type: "invalid_request_error",
			Message: "fakeanthropic: request body: " + err.Error()}, "req_fake")
		s.finish(i, http.StatusBadRequest, false)
		return
	}
	rec.Messages = &req

	ruleIdx, reply := s.pick(&req)
	rec.Rule = ruleIdx
	i := s.record(rec)
	requestID := fmt.Sprintf("req_fake_%04d", s.nextID())
	w.Header().Set("Request-Id", requestID)
	if reply.Error != nil && !(reply.Error.InStream && req.Stream) {
		writeAPIError(w, reply.Error, requestID)
		s.finish(i, reply.Error.Status, false)
		return
	}
	p := s.plan(reply, &req, tokens(string(body)))
	if !req.Stream {
		writeJSON(w, http.StatusOK, p.msg)
		s.finish(i, http.StatusOK, false)
		return
	}
	err := p.stream(r.Context(), w)
	s.finish(i, http.StatusOK, err != nil && r.Context().Err() != nil)
}

func (s *Server) finish(i int, status int, disconnected bool) {
	var done Request
	s.update(i, func(q *Request) {
		q.Status, q.Disconnected = status, disconnected
		done = *q
	})
	if s.cfg.onRequest != nil {
		s.cfg.onRequest(done)
	}
}

// serveOther answers the endpoints besides /v1/messages that Claude Code
// calls, and 404 for the rest. It returns the status it sent.
func (s *Server) serveOther(w http.ResponseWriter, r *http.Request, body []byte) int {
	switch {
	case r.URL.Path == "/api/hello" || r.URL.Path == "/v1/oauth/hello":
		// Claude Code's first-launch connectivity check wants a 200.
		writeJSON(w, http.StatusOK, map[string]string{"message": "hello"})
		return http.StatusOK
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/event_logging/"):
		// Telemetry batches: accepted so the client does not retry them.
		writeJSON(w, http.StatusOK, map[string]any{})
		return http.StatusOK
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": tokens(string(body))})
		return http.StatusOK
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, modelList())
		return http.StatusOK
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/models/"):
		id := strings.TrimPrefix(r.URL.Path, "/v1/models/")
		writeJSON(w, http.StatusOK, model(id))
		return http.StatusOK
	}
	writeJSON(w, http.StatusNotFound, errorBody(&APIError{Type: "not_found_error", Message: "fakeanthropic: no such endpoint " + r.Method + " " + r.URL.Path}, "req_fake"))
	return http.StatusNotFound
}

// Models the fake lists at GET /v1/models.
var Models = []string{"claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5"}

func model(id string) map[string]string {
	return map[string]string{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"}
}

func modelList() map[string]any {
	data := make([]map[string]string, len(Models))
	for i, id := range Models {
		data[i] = model(id)
	}
	return map[string]any{"data": data, "has_more": false, "first_id": Models[0], "last_id": Models[len(Models)-1]}
}

// dumpRequest renders r for logs and debugging.
func dumpRequest(r Request) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s%s", r.Method, r.Host, r.Path)
	if r.Messages != nil {
		fmt.Fprintf(&b, " model=%s stream=%v tools=%d rule=%d last=%q", r.Messages.Model, r.Messages.Stream,
			len(r.Messages.Tools), r.Rule, r.Messages.LastUserText())
		if tr := r.Messages.LastToolResult(); tr != nil {
			fmt.Fprintf(&b, " tool_result=%q error=%v", tr.ResultText(), tr.IsError)
		}
	}
	fmt.Fprintf(&b, " -> %d", r.Status)
	if r.Disconnected {
		b.WriteString(" (client disconnected)")
	}
	return b.String()
}

// String renders the request on one line, for logs.
func (r Request) String() string { return dumpRequest(r) }
