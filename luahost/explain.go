package luahost

import (
	"context"
	"fmt"
	"math"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/luart"
)

// ClassifyExplained calls classify(ctx) with ctx.explain set and reads,
// besides the snapshot, the explanation fields of its result: rule (a
// string id), region ({first_row, last_row}) and considered (a list of
// {state?, rule?, reason?}). Classify never reads them.
func (e *Extension) ClassifyExplained(ctx context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, contract.Explanation, error) {
	cc.Explain = true
	var st ptywright.StateSnapshot
	var x contract.Explanation
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
func decodeExplanation(res luart.Value) (contract.Explanation, error) {
	var x contract.Explanation
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
		x.Region = &contract.RowRegion{FirstRow: int(first), LastRow: int(last)}
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
			var cs contract.ConsideredState
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
