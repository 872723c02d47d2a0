package ptywright

import (
	"context"
	"fmt"
	"math"

	"ptywright/internal/luart"
)

// Explanation is the account of one classification: which of the plugin's
// rules fired, on which rows, with what evidence, what else it considered
// and why not, and the parser's provenance and anomalies. Plugins name
// their rules with stable ids (classify returns rule = "codex.composer").
type Explanation struct {
	State      string  `json:"state"`
	Confidence float64 `json:"confidence"`
	Sequence   uint64  `json:"sequence"`
	// Rule is the id of the rule that fired, "" when the plugin names none.
	Rule string `json:"rule,omitempty"`
	// Region is the screen rows the rule matched, when the plugin says.
	Region *RowRegion `json:"region,omitempty"`
	// Evidence is the classification's evidence text.
	Evidence string `json:"evidence"`
	// Considered lists the states or rules the plugin tried and rejected,
	// with why.
	Considered []ConsideredState `json:"considered,omitempty"`
	// ParserVersion is the parser preset's version (from the assessment's
	// parser_metadata), Parser the whole provenance.
	ParserVersion string          `json:"parser_version,omitempty"`
	Parser        *ParserMetadata `json:"parser,omitempty"`
	// Anomalies are the assessment's (unknown version, fallback...).
	Anomalies []Anomaly `json:"anomalies,omitempty"`
}

// RowRegion is a span of screen rows, 1-based and inclusive.
type RowRegion struct {
	FirstRow int `json:"first_row"`
	LastRow  int `json:"last_row"`
}

// ConsideredState is a state or rule a classifier tried and rejected.
type ConsideredState struct {
	State  string `json:"state,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Explainer is implemented by extensions that can account for a
// classification (LuaExtension does). ClassifyExplained classifies like
// Classify with cc.Explain set and returns the explanation too.
type Explainer interface {
	ClassifyExplained(ctx context.Context, cc ClassifyContext) (StateSnapshot, Explanation, error)
}

// Redact returns a copy with its texts (evidence, reasons, anomaly
// messages) redacted by r; nil r returns x unchanged.
func (x Explanation) Redact(r *Redactor) Explanation {
	if r == nil {
		return x
	}
	x.Evidence = r.Redact(x.Evidence)
	if x.Considered != nil {
		c := make([]ConsideredState, len(x.Considered))
		for i, cs := range x.Considered {
			cs.Reason = r.Redact(cs.Reason)
			c[i] = cs
		}
		x.Considered = c
	}
	if x.Anomalies != nil {
		a := make([]Anomaly, len(x.Anomalies))
		for i, an := range x.Anomalies {
			an.Message = r.Redact(an.Message)
			a[i] = an
		}
		x.Anomalies = a
	}
	return x
}

// explanationOf fills what a snapshot says about itself; the plugin's rule,
// region and considered come on top.
func explanationOf(st StateSnapshot) Explanation {
	x := Explanation{State: st.State, Confidence: st.Confidence, Sequence: st.Sequence, Evidence: st.Evidence}
	if a := st.Assessment; a != nil {
		x.Anomalies = a.Anomalies
		if pm := a.ParserMetadata; pm != nil {
			x.Parser = pm
			x.ParserVersion = pm.ParserPresetVersion
		}
	}
	return x
}

// Explain classifies the current screen and accounts for it: the rule
// that fired, the rows it matched, the evidence, what the plugin
// considered and rejected, the parser version and anomalies. It is a
// classification like State (it reports a state change, feeds the
// lifecycle), and queues like every handle method. The texts are raw; a
// caller that shows them elsewhere redacts them (Explanation.Redact), as
// the JSON-RPC server does. An extension that is not an Explainer gets
// the explanation its snapshot allows (no rule, nothing considered).
func (h *ExtensionHandle) Explain(ctx context.Context) (Explanation, error) {
	if err := h.turn.lock(ctx); err != nil {
		return Explanation{}, err
	}
	defer h.turn.unlock()
	if h.closed {
		return Explanation{}, ErrSessionClosed
	}
	return h.explainLocked(ctx), nil
}

// explainLocked is classifyLocked with an explanation.
func (h *ExtensionHandle) explainLocked(ctx context.Context) Explanation {
	snap := h.s.Snapshot(SnapshotOptions{Raw: true})
	shown := h.s.lastVisibleChange()
	h.extMu.Lock()
	cc := h.contextLocked(snap)
	cc.Explain = true
	st, x := classifyExplained(ctx, h.ext, cc)
	h.noteStateLocked(st)
	h.surface.note(st, shown)
	h.extMu.Unlock()
	if h.lc != nil {
		h.feed(st, snap)
	}
	return x
}

// classifyExplained is classify through an Explainer, when ext is one.
func classifyExplained(ctx context.Context, ext Extension, cc ClassifyContext) (StateSnapshot, Explanation) {
	e, ok := ext.(Explainer)
	if !ok {
		st := classify(ctx, ext, cc)
		return st, explanationOf(st)
	}
	var x Explanation
	st := classify(ctx, explainedExt{Extension: ext, e: e, x: &x}, cc)
	if st.State == PluginErrorState {
		x = Explanation{}
	}
	full := explanationOf(st)
	full.Rule, full.Region, full.Considered = x.Rule, x.Region, x.Considered
	return st, full
}

// explainedExt routes classify's Classify through ClassifyExplained,
// keeping the explanation, so classify's error handling applies to both.
type explainedExt struct {
	Extension
	e Explainer
	x *Explanation
}

func (w explainedExt) Classify(ctx context.Context, cc ClassifyContext) (StateSnapshot, error) {
	st, x, err := w.e.ClassifyExplained(ctx, cc)
	*w.x = x
	return st, err
}

// ClassifyExplained calls classify(ctx) with ctx.explain set and reads,
// besides the snapshot, the explanation fields of its result: rule (a
// string id), region ({first_row, last_row}) and considered (a list of
// {state?, rule?, reason?}). Classify never reads them.
func (e *LuaExtension) ClassifyExplained(ctx context.Context, cc ClassifyContext) (StateSnapshot, Explanation, error) {
	cc.Explain = true
	var st StateSnapshot
	var x Explanation
	err := e.call(ctx, "classify", func(a *luart.Args) error { return a.Go(cc) }, func(v luart.Value) (err error) {
		if st, err = decodeSnapshot(v); err != nil {
			return err
		}
		x, err = decodeExplanation(v)
		return err
	})
	return st, x, err
}

// decodeExplanation reads rule, region and considered from classify's
// result res.
func decodeExplanation(res luart.Value) (Explanation, error) {
	var x Explanation
	switch r := res.Field("rule"); {
	case r.IsNil():
	case r.IsString():
		x.Rule, _ = r.String()
	default:
		return x, fmt.Errorf("classify: field \"rule\": want a string, got %s", r.TypeName())
	}
	if r := res.Field("region"); !r.IsNil() {
		v, err := r.Go("classify: region")
		if err != nil {
			return x, err
		}
		m, _ := v.(map[string]any)
		first, ok1 := m["first_row"].(int64)
		last, ok2 := m["last_row"].(int64)
		if m == nil || !ok1 || !ok2 || first < 1 || last < first || last > math.MaxInt32 {
			return x, fmt.Errorf("classify: field \"region\": want {first_row = n, last_row = m} with 1 <= n <= m")
		}
		x.Region = &RowRegion{FirstRow: int(first), LastRow: int(last)}
	}
	if c := res.Field("considered"); !c.IsNil() {
		v, err := c.Go("classify: considered")
		if err != nil {
			return x, err
		}
		list, ok := v.([]any)
		if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
			list, ok = nil, true
		}
		if !ok {
			return x, fmt.Errorf("classify: field \"considered\": want a list of {state, rule, reason}")
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return x, fmt.Errorf("classify: considered[%d]: want a table {state, rule, reason}", i+1)
			}
			var cs ConsideredState
			for k, dst := range map[string]*string{"state": &cs.State, "rule": &cs.Rule, "reason": &cs.Reason} {
				switch s := m[k].(type) {
				case nil:
				case string:
					*dst = s
				default:
					return x, fmt.Errorf("classify: considered[%d].%s: want a string", i+1, k)
				}
			}
			x.Considered = append(x.Considered, cs)
		}
	}
	return x, nil
}
