package ptywright

import (
	"context"
	"encoding/json"
	"time"

	"ptywright/events"
)

// policyRunner is the goroutine that answers the dialogs a Policy decides.
type policyRunner struct {
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the goroutine has stopped
	last string        // the last dialog instance decided (goroutine-owned)
}

// PolicyDecision is the payload of adapter:policy_decision: the rule that
// decided a dialog, the dialog (redacted like every read), the answer sent
// and what became of it.
type PolicyDecision struct {
	Event     string `json:"event"`
	Timestamp string `json:"timestamp"`
	Session   string `json:"session,omitempty"`
	Adapter   string `json:"adapter,omitempty"`
	Rule      string `json:"rule"`
	Decision  string `json:"decision"`
	DialogID  string `json:"dialog_id"`
	Tool      string `json:"tool,omitempty"`
	Command   string `json:"command,omitempty"`
	Path      string `json:"path,omitempty"`
	URL       string `json:"url,omitempty"`
	MCPServer string `json:"mcp_server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	// Intent is the answer sent (none for ask); Effect its receipt's
	// effect; Error why it failed, if it did.
	Intent string `json:"intent,omitempty"`
	Effect Effect `json:"effect,omitempty"`
	Error  string `json:"error,omitempty"`
}

// startPolicy starts the policy's goroutine when the handle has rules.
func (h *ExtensionHandle) startPolicy() {
	if h.opts.Policy == nil || len(h.opts.Policy.Rules) == 0 {
		return
	}
	h.policy.stop, h.policy.done = make(chan struct{}), make(chan struct{})
	go h.policyLoop()
}

// stopPolicy stops the goroutine; a decision being answered is cancelled.
func (h *ExtensionHandle) stopPolicy() {
	if h.policy.stop == nil {
		return
	}
	close(h.policy.stop)
	<-h.policy.done
}

// policyLoop looks at every screen change until the handle closes or the
// program exits.
func (h *ExtensionHandle) policyLoop() {
	defer close(h.policy.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.policy.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		_, changed := h.s.Changed()
		h.policyStep(ctx)
		select {
		case <-changed:
		case <-h.s.exited:
			return
		case <-h.policy.stop:
			return
		}
	}
}

// policyStep decides the dialog on screen, once per dialog instance, and
// answers it when a rule allows or denies it.
func (h *ExtensionHandle) policyStep(ctx context.Context) {
	if h.inputHeld() != nil {
		return // A person has the terminal: decided after the release.
	}
	st, snap := h.classifyNow(ctx)
	d, ok := DialogOf(st)
	if !ok || d.ID == h.policy.last {
		return
	}
	rule, ok := h.opts.Policy.Decide(h.ext.Manifest().Name, d)
	if !ok {
		return
	}
	h.policy.last = d.ID
	rd, _ := DialogOf(h.redactedState(st, snap))
	if rd == nil {
		rd = d
	}
	pd := PolicyDecision{Event: events.AdapterPolicyDecision, Session: h.opts.Scope.Session, Adapter: h.opts.Scope.Adapter,
		Rule: rule.ID, Decision: rule.Decision, DialogID: d.ID, Tool: rd.Tool, Command: rd.Command, Path: rd.Path, URL: rd.URL,
		MCPServer: rd.MCPServer, MCPTool: rd.MCPTool}
	switch rule.Decision {
	case PolicyAllow:
		pd.Intent = "approve"
	case PolicyDeny:
		pd.Intent = "deny"
	}
	if pd.Intent != "" {
		params, _ := json.Marshal(map[string]string{"dialog_id": d.ID})
		rc, err := h.deliver(WithDecider(ctx, "rule "+rule.ID), pd.Intent, params)
		pd.Effect = rc.Effect
		if err != nil {
			pd.Error = h.red.quotingScreen(snap.PlainText, snap.Size.Cols).Redact(err.Error())
		}
	}
	h.emitPolicyDecision(pd)
}

// emitPolicyDecision emits pd as adapter:policy_decision on the handle's
// bus, if it has one.
func (h *ExtensionHandle) emitPolicyDecision(pd PolicyDecision) {
	bus := h.opts.Events
	if bus == nil {
		return
	}
	now := time.Now()
	pd.Timestamp = events.Timestamp(now)
	raw, err := json.Marshal(pd)
	if err != nil {
		return
	}
	_ = bus.Emit(events.Event{Name: events.AdapterPolicyDecision, Session: pd.Session, Adapter: pd.Adapter, Payload: raw, Time: now})
}
