package rpc

import (
	"context"
	"fmt"
)

// The actions of session.control's action param.
const (
	controlTake    = "take"
	controlRelease = "release"
)

// controlParams are session.control's: a person takes the terminal of a
// session (ptywright attach --control) or gives it back.
type controlParams struct {
	Session string `json:"session" rpc:"required"`
	// Action is "take" or "release".
	Action string `json:"action" rpc:"required"`
}

// controlResult is session.control's result: whether this connection has
// the terminal now, and the session's adapter, if any.
type controlResult struct {
	Session string `json:"session"`
	Control bool   `json:"control"`
	Adapter string `json:"adapter,omitempty"`
}

// sessionControl gives connection c the terminal of a session, or takes
// it back. While c has it, c's session.input reaches the session even
// when an adapter owns it, and every other writer (adapter.send,
// adapter.turn, session.input from another connection) is refused with
// -32006; reads keep working. The end of c releases it.
func (s *Server) sessionControl(_ context.Context, c *conn, raw []byte) (any, error) {
	var p controlParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	e, err := s.reg.get(p.Session)
	if err != nil {
		return nil, err
	}
	switch p.Action {
	case controlTake:
		if !e.control.CompareAndSwap(0, c.id) && e.control.Load() != c.id {
			return nil, fmt.Errorf("%w: another person has the terminal of session %s (session.control)", ErrIntentRefused, e.id)
		}
		e.holdAdapter()
		e.touch()
		return controlResult{Session: e.id, Control: true, Adapter: e.adapter}, nil
	case controlRelease:
		if e.control.CompareAndSwap(c.id, 0) {
			e.holdAdapter()
		}
		return controlResult{Session: e.id, Control: false, Adapter: e.adapter}, nil
	}
	return nil, invalidParams("action", "must be %q or %q, got %q", controlTake, controlRelease, p.Action)
}

// personHasTerminal refuses a write to e from connection c while a person
// has its terminal through another connection (every writer: mutable's
// methods, adapter.send and adapter.turn; the adapter's policy is held by
// holdAdapter).
func personHasTerminal(e *entry, c *conn, method string) error {
	if id := e.control.Load(); id != 0 && (c == nil || id != c.id) {
		return fmt.Errorf("%w: a person has the terminal of session %s (ptywright attach --control): %s is refused until they release it; reads such as adapter.state keep working", ErrIntentRefused, e.id, method)
	}
	return nil
}

// inputTarget returns session id for session.input from c: the connection
// that has the terminal may type into an adapter's session too (the person
// decides), any other is refused while a person has it, and otherwise the
// rules of mutable apply.
func (s *Server) inputTarget(ctx context.Context, c *conn, id, use string) (*entry, error) {
	e, err := s.reg.get(id)
	if err != nil {
		return nil, err
	}
	if c != nil && e.control.Load() == c.id {
		holdNotifications(ctx, e)
		return e, nil
	}
	return s.mutable(ctx, c, id, "session.input", use)
}

// releaseControl gives back the terminals connection id had, once it has
// ended.
func (s *Server) releaseControl(id uint64) {
	for _, e := range s.reg.list() {
		if e.control.CompareAndSwap(id, 0) {
			e.holdAdapter()
		}
	}
}

// holdAdapter holds the input of e's adapter (its clients' intents and
// its policy's answers) while a person has the terminal, and lets it go
// once nobody has.
func (e *entry) holdAdapter() {
	h := e.handle.Load()
	if h == nil {
		return
	}
	if e.control.Load() == 0 {
		h.HoldInput(nil)
		return
	}
	h.HoldInput(fmt.Errorf("a person has the terminal of session %s (ptywright attach --control); reads such as adapter.state keep working", e.id))
}
