package rpc

import (
	"context"
	"time"
)

// DefaultRunTimeout bounds session.run when timeout_ms is omitted: the
// wait for the prompt before the command and for the one after it.
const DefaultRunTimeout = 30 * time.Second

type runParams struct {
	Session   string `json:"session" rpc:"required"`
	Command   string `json:"command" rpc:"required"`
	TimeoutMs *int64 `json:"timeout_ms"`
}

// runResult is session.run's result (ptywright.RunResult).
type runResult struct {
	Output string `json:"output"`
	Status int    `json:"status"`
	Exited bool   `json:"exited"`
}

func (s *Server) sessionRun(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p runParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, DefaultRunTimeout)
	if err != nil {
		return nil, err
	}
	e, err := s.mutable(ctx, c, p.Session, "session.run", "adapter.send")
	if err != nil {
		return nil, err
	}
	sh := e.shell.Load()
	if sh == nil {
		return nil, invalidParams("session", "session %s was not created with a preset: session.run needs one (session.create's preset)", e.id)
	}
	defer e.busyFor()()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := sh.Run(ctx, p.Command)
	if err != nil {
		return nil, err
	}
	return runResult{Output: res.Output, Status: res.Status, Exited: res.Exited}, nil
}
