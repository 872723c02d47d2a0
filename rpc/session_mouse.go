package rpc

import (
	"context"
	"fmt"

	"ptywright"
)

// mouseParams is session.mouse's params: one gesture (ptywright.Mouse) at
// a cell or at a text or regex on the screen.
type mouseParams struct {
	Session string `json:"session" rpc:"required"`
	Kind    string `json:"kind" rpc:"required"`
	Button  string `json:"button"`
	Row     int    `json:"row"`
	Col     int    `json:"col"`
	ToRow   int    `json:"to_row"`
	ToCol   int    `json:"to_col"`
	// Mods are the keys held: "shift", "alt", "ctrl".
	Mods  []string `json:"mods"`
	Text  string   `json:"text"`
	Regex string   `json:"regex"`
	// TimeoutMs bounds the write, as session.input's.
	TimeoutMs *int64 `json:"timeout_ms"`
}

// mouseResult is session.input's result and the cell the gesture started
// at (the locator's, when text or regex was given).
type mouseResult struct {
	Sent     bool   `json:"sent"`
	Bytes    int    `json:"bytes"`
	Sequence uint64 `json:"sequence"`
	Row      int    `json:"row"`
	Col      int    `json:"col"`
}

func (s *Server) sessionMouse(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p mouseParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	m := ptywright.Mouse{Kind: ptywright.MouseKind(p.Kind), Button: ptywright.MouseButton(p.Button), Row: p.Row, Col: p.Col, ToRow: p.ToRow, ToCol: p.ToCol, Text: p.Text, Regex: p.Regex}
	for i, name := range p.Mods {
		switch name {
		case "shift":
			m.Mods |= ptywright.ModShift
		case "alt":
			m.Mods |= ptywright.ModAlt
		case "ctrl":
			m.Mods |= ptywright.ModCtrl
		default:
			return nil, invalidParams(fmt.Sprintf("mods[%d]", i), "unknown modifier %q (valid: shift, alt, ctrl)", name)
		}
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, DefaultInputTimeout)
	if err != nil {
		return nil, err
	}
	e, err := s.mutable(ctx, c, p.Session, "session.mouse", "adapter.send or adapter.turn")
	if err != nil {
		return nil, err
	}
	defer e.busyFor()()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := e.sess.Mouse(ctx, m)
	if err != nil {
		return nil, err
	}
	return mouseResult{Sent: true, Bytes: res.Bytes, Sequence: res.Sequence, Row: res.Row, Col: res.Col}, nil
}
