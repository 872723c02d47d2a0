package rpc

import (
	"context"

	"ptywright"
)

type explainResult struct {
	Adapter     string                `json:"adapter"`
	Plugin      string                `json:"plugin"`
	Explanation ptywright.Explanation `json:"explanation"`
}

// adapterExplain is adapter.explain: it classifies the adapter's screen now
// and answers the plugin's account of it (rule, region, evidence,
// considered states, parser version, anomalies), redacted like every read
// (redact / redaction as for adapter.snapshot; default: redacted).
func (s *Server) adapterExplain(ctx context.Context, _ *conn, raw []byte) (any, error) {
	a, r, err := s.adapterRead("adapter.explain", raw)
	if err != nil {
		return nil, err
	}
	x, err := a.h.Explain(ctx)
	if err != nil {
		return nil, err
	}
	return explainResult{Adapter: a.id, Plugin: a.plugin, Explanation: x.Redact(r)}, nil
}
