package rpc

import (
	"context"
	"errors"

	"ptywright"
	"ptywright/contract"
)

type explainResult struct {
	Adapter     string               `json:"adapter"`
	Plugin      string               `json:"plugin"`
	Explanation contract.Explanation `json:"explanation"`
}

// explainParams are adapter.explain's: a redacting read with an optional
// sequence.
type explainParams struct {
	Adapter   string           `json:"adapter" rpc:"required"`
	Redact    *bool            `json:"redact"`
	Redaction *redactionParams `json:"redaction"`
	// Sequence, when given, asks for the classification made at that
	// screen sequence (a state's sequence) while the adapter holds it.
	Sequence *uint64 `json:"sequence"`
}

// notHeldData is the data of -32602 for a sequence the adapter no longer
// (or not yet) holds.
type notHeldData struct {
	Sequence   uint64 `json:"sequence"`
	OldestHeld uint64 `json:"oldest_held"`
	NewestHeld uint64 `json:"newest_held"`
	// Held is how many classifications are held (0: none yet), Capacity
	// how many the adapter keeps.
	Held     int `json:"held"`
	Capacity int `json:"capacity"`
}

// adapterExplain is adapter.explain: the plugin's account of a
// classification (rule, region, evidence, considered states, parser
// version, anomalies), redacted like every read (redact / redaction as for
// adapter.snapshot; default: redacted). Without sequence it classifies the
// adapter's screen now (queued behind a running send, wait or turn); with
// sequence it explains the classification made at that sequence, at once,
// if the adapter still holds it (its last NotHeldError.Capacity),
// else -32602 naming the oldest held sequence.
func (s *Server) adapterExplain(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p explainParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, err := readParams{Redact: p.Redact, Redaction: p.Redaction}.redactor()
	if err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.explain", p.Adapter)
	if err != nil {
		return nil, err
	}
	opts := []ptywright.ExplainOption{ptywright.ExplainRedactor(r)}
	if p.Sequence != nil {
		opts = append(opts, ptywright.ExplainAt(*p.Sequence))
	}
	x, err := a.h.Explain(ctx, opts...)
	var nh *ptywright.NotHeldError
	if errors.As(err, &nh) {
		return nil, withData(err, notHeldData{Sequence: nh.Sequence, OldestHeld: nh.Oldest, NewestHeld: nh.Newest,
			Held: nh.Held, Capacity: nh.Capacity})
	}
	if err != nil {
		return nil, err
	}
	return explainResult{Adapter: a.id, Plugin: a.plugin, Explanation: x}, nil
}
