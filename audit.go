package ptywright

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// AuditLog is an append-only file of the dialogs answered: one JSON line
// (an AuditRecord) for each answer a handle delivered or refused, whoever
// decided it. Give it to handles as HandleOptions.Audit; one log may serve
// many handles at once. Lines are written whole, one write each, and
// synced.
type AuditLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error // the first write error, returned by Close
}

// OpenAuditLog opens path for appending, creating it with mode 0600; an
// existing file is appended to (never truncated) and made 0600.
func OpenAuditLog(path string) (*AuditLog, error) {
	if path == "" {
		return nil, fmt.Errorf("%w: audit log: empty path", ErrInvalidParams)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close() // Best effort: already failing.
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &AuditLog{f: f, path: path}, nil
}

// Path is the file the log appends to.
func (l *AuditLog) Path() string { return l.path }

// Write appends r as one line. Time is set to now when zero.
func (l *AuditLog) Write(r AuditRecord) error {
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("audit log %s: closed", l.path)
	}
	if _, err = l.f.Write(line); err == nil {
		err = l.f.Sync()
	}
	if err != nil {
		err = fmt.Errorf("audit log %s: %w", l.path, err)
		if l.err == nil {
			l.err = err
		}
	}
	return err
}

// Close closes the file; it returns the first write error, if any.
func (l *AuditLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.f.Close()
	l.f = nil
	if l.err != nil {
		return l.err
	}
	return err
}

// AuditRecord is one line of an AuditLog: a dialog answered (or an answer
// refused at the moment of the key), what it asked and who decided.
// Strings quoted off the screen are redacted like every read.
type AuditRecord struct {
	Time time.Time `json:"time"`
	// Session, Adapter and Plugin say where (HandleOptions.Scope, the
	// plugin's name).
	Session string `json:"session,omitempty"`
	Adapter string `json:"adapter,omitempty"`
	Plugin  string `json:"plugin"`
	// Intent is the answer sent (approve, deny, ...).
	Intent string `json:"intent"`
	// The dialog on screen at the moment of the key (see Dialog).
	DialogKind string `json:"dialog_kind,omitempty"`
	DialogID   string `json:"dialog_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	Command    string `json:"command,omitempty"`
	Path       string `json:"path,omitempty"`
	URL        string `json:"url,omitempty"`
	MCPServer  string `json:"mcp_server,omitempty"`
	MCPTool    string `json:"mcp_tool,omitempty"`
	// Option and OptionLabel name the option the keys chose (0: none, as
	// for an Escape on a dialog without an "esc" option).
	Option      int    `json:"option,omitempty"`
	OptionLabel string `json:"option_label,omitempty"`
	// DecidedBy is who decided: the caller (WithDecider: "connection 3"
	// over JSON-RPC) or a policy's rule ("rule allow-touch").
	DecidedBy string `json:"decided_by"`
	// Effect is the receipt's effect (not_sent when refused); Reason why,
	// when it says.
	Effect Effect `json:"effect"`
	Reason string `json:"reason,omitempty"`
}

// ReadAuditLog reads the records of an audit log's lines.
func ReadAuditLog(r io.Reader) ([]AuditRecord, error) {
	var out []AuditRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var rec AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return out, fmt.Errorf("audit log line %d: %w", n, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

type deciderKey struct{}

// WithDecider names who decides the answers sent under ctx, for the audit
// log: a client ("connection 3") or a policy's rule ("rule deny-rm").
// Without it a record says "caller".
func WithDecider(ctx context.Context, who string) context.Context {
	return context.WithValue(ctx, deciderKey{}, who)
}

// deciderOf is who WithDecider named, or "caller".
func deciderOf(ctx context.Context) string {
	if who, ok := ctx.Value(deciderKey{}).(string); ok && who != "" {
		return who
	}
	return "caller"
}

// auditAnswer writes the record of an answer planned with plan to the
// handle's audit log, if it has one: the dialog on screen when the keys
// went (st, classified on snap) and what became of them (rc). Plans that
// answer no dialog are not recorded.
func (h *ExtensionHandle) auditAnswer(ctx context.Context, intent string, plan ActionPlan, st StateSnapshot, snap ScreenSnapshot, rc Receipt) {
	l := h.opts.Audit
	if l == nil || plan.Answer == nil {
		return
	}
	red := h.red.quotingScreen(snap.PlainText, snap.Size.Cols)
	rec := AuditRecord{
		Session: h.opts.Scope.Session, Adapter: h.opts.Scope.Adapter, Plugin: h.ext.Manifest().Name,
		Intent: intent, DialogID: plan.Answer.DialogID,
		Option: plan.Answer.Index, OptionLabel: red.Redact(plan.Answer.Label),
		DecidedBy: deciderOf(ctx), Effect: rc.Effect, Reason: rc.Reason,
	}
	if d, ok := DialogOf(h.redactedState(st, snap)); ok {
		rec.DialogKind, rec.DialogID = d.Kind, d.ID
		rec.Tool, rec.ToolName, rec.Command, rec.Path, rec.URL = d.Tool, d.ToolName, d.Command, d.Path, d.URL
		rec.MCPServer, rec.MCPTool = d.MCPServer, d.MCPTool
	}
	if rec.Effect == "" {
		rec.Effect = "error"
	}
	_ = l.Write(rec) // A failed write is kept for Close; the answer stands.
}
