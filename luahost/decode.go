package luahost

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/luart"
	"ptywright/internal/wire"
	"ptywright/manifest"
)

// decodeSnapshot reads classify's result.
func decodeSnapshot(res luart.Value) (ptywright.StateSnapshot, error) {
	if !res.IsTable() {
		return ptywright.StateSnapshot{}, fmt.Errorf("classify returned %s, want a table {state = ...}", res.TypeName())
	}
	var st ptywright.StateSnapshot
	v := res.Field("state")
	st.State, _ = v.String()
	if !v.IsString() || st.State == "" {
		return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"state\": want a non-empty string, got %s", v.TypeName())
	}
	switch v := res.Field("confidence"); {
	case v.IsNil():
	case v.IsNumber():
		st.Confidence, _ = v.Number()
		if math.IsNaN(st.Confidence) {
			return ptywright.StateSnapshot{}, errors.New("classify: field \"confidence\": NaN")
		}
	default:
		return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"confidence\": want a number, got %s", v.TypeName())
	}
	switch v := res.Field("evidence"); {
	case v.IsNil():
	case v.IsString():
		st.Evidence, _ = v.String()
	default:
		raw, err := v.JSON("classify: evidence")
		if err != nil {
			return ptywright.StateSnapshot{}, err
		}
		st.Evidence = string(raw)
	}
	if v := res.Field("metadata"); !v.IsNil() {
		x, err := v.Go("classify: metadata")
		if err != nil {
			return ptywright.StateSnapshot{}, err
		}
		md, ok := x.(map[string]any)
		if !ok {
			return ptywright.StateSnapshot{}, errors.New("classify: field \"metadata\": want a table with string keys")
		}
		st.Metadata = md
	}
	switch v := res.Field("last_intent"); {
	case v.IsNil():
	case v.IsString():
		if s, _ := v.String(); s != "" {
			st.LastIntent = &s
		}
	default:
		return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"last_intent\": want a string, got %s", v.TypeName())
	}
	switch v := res.Field("input_settle_ms"); {
	case v.IsNil():
	case v.IsNumber():
		n, _ := v.Number()
		if n < 0 || n > 60000 || math.IsNaN(n) {
			return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"input_settle_ms\": want 0..60000, got %v", n)
		}
		st.InputSettleMs = int64(n)
	default:
		return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"input_settle_ms\": want a number, got %s", v.TypeName())
	}
	if v := res.Field("assessment"); !v.IsNil() {
		raw, err := v.JSON("classify: assessment")
		if err != nil {
			return ptywright.StateSnapshot{}, err
		}
		a, err := contract.DecodeAssessment(raw)
		if err != nil {
			return ptywright.StateSnapshot{}, fmt.Errorf("classify: field \"assessment\": %w", err)
		}
		st.Assessment = &a
	}
	return st, nil
}

// decodePlan reads an intent's result; may says which permissions the
// plugin holds, for its actions.
func decodePlan(res luart.Value, may func(manifest.Permission) bool) (ptywright.ActionPlan, error) {
	if !res.IsTable() {
		return ptywright.ActionPlan{}, fmt.Errorf("intent returned %s, want a table {actions = {...}, last_intent = ...}", res.TypeName())
	}
	var plan ptywright.ActionPlan
	if v := res.Field("actions"); !v.IsNil() {
		acts, err := decodeActions(v, "actions", may)
		if err != nil {
			return ptywright.ActionPlan{}, err
		}
		plan.Actions = acts
	}
	switch v := res.Field("last_intent"); {
	case v.IsNil():
	case v.IsString():
		s, _ := v.String()
		plan.LastIntent = &s
	default:
		return ptywright.ActionPlan{}, fmt.Errorf("field \"last_intent\": want a string, got %s", v.TypeName())
	}
	if v := res.Field("expect"); !v.IsNil() {
		raw, err := v.JSON("expect")
		if err != nil {
			return ptywright.ActionPlan{}, err
		}
		e, err := decodeExpectation(raw)
		if err != nil {
			return ptywright.ActionPlan{}, fmt.Errorf("field \"expect\": %w", err)
		}
		plan.Expect = e
	}
	if v := res.Field("retry"); !v.IsNil() {
		acts, err := decodeActions(v, "retry", may)
		if err != nil {
			return ptywright.ActionPlan{}, err
		}
		plan.Retry = acts
	}
	switch v := res.Field("resend"); {
	case v.IsNil():
	case v.IsBool():
		plan.Resend = v.Bool()
	default:
		return ptywright.ActionPlan{}, fmt.Errorf("field \"resend\": want a boolean, got %s", v.TypeName())
	}
	if v := res.Field("await"); !v.IsNil() {
		raw, err := v.JSON("await")
		if err != nil {
			return ptywright.ActionPlan{}, err
		}
		var a ptywright.InputAwait
		if err := wire.StrictDecode(raw, &a); err != nil {
			return ptywright.ActionPlan{}, fmt.Errorf("field \"await\": want {states = {...}, within_ms = n}: %w", err)
		}
		if len(a.States) == 0 || a.WithinMs < 0 {
			return ptywright.ActionPlan{}, fmt.Errorf("field \"await\": needs a non-empty states list and a within_ms that is not negative")
		}
		plan.Await = &a
	}
	if v := res.Field("answer"); !v.IsNil() {
		raw, err := v.JSON("answer")
		if err != nil {
			return ptywright.ActionPlan{}, err
		}
		var a ptywright.DialogAnswer
		if err := wire.StrictDecode(raw, &a); err != nil {
			return ptywright.ActionPlan{}, fmt.Errorf("field \"answer\": want {dialog_id = s, index = n, label = s, highlighted = n}: %w", err)
		}
		if a.Index < 0 || a.Highlighted < 0 {
			return ptywright.ActionPlan{}, fmt.Errorf("field \"answer\": index and highlighted must not be negative")
		}
		plan.Answer = &a
	}
	return plan, nil
}

// decodeExpectation reads a plan's expect: an expectation table
// {matcher?, states?, leave?, within_ms?}, or a bare matcher as shorthand
// for {matcher = m}.
func decodeExpectation(raw []byte) (*ptywright.Expectation, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("want a table: %w", err)
	}
	if _, bare := probe["type"]; bare {
		var m ptywright.Matcher
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return &ptywright.Expectation{Matcher: &m}, nil
	}
	if states, ok := probe["states"]; ok && string(states) == "{}" {
		probe["states"] = json.RawMessage("[]") // An empty Lua table.
		raw, _ = json.Marshal(probe)
	}
	var e ptywright.Expectation
	if err := wire.StrictDecode(raw, &e); err != nil {
		return nil, err
	}
	return &e, e.Validate()
}

// decodeActions reads a list of actions (a plan's actions or retry),
// checking each against the manifest's permissions.
func decodeActions(v luart.Value, field string, may func(manifest.Permission) bool) ([]ptywright.Action, error) {
	x, err := v.Go(field)
	if err != nil {
		return nil, err
	}
	var list []any
	switch x := x.(type) {
	case []any:
		list = x
	case map[string]any:
		if len(x) > 0 {
			return nil, fmt.Errorf("field %q: want a list of actions, got a table with string keys", field)
		}
	default:
		return nil, fmt.Errorf("field %q: want a list of actions, got %s", field, v.TypeName())
	}
	var acts []ptywright.Action
	for i, item := range list {
		raw, err := luart.MarshalJSON(item)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i+1, err)
		}
		var a ptywright.Action
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i+1, err)
		}
		if p := actionPermission(a.Type); p != "" && !may(p) {
			return nil, fmt.Errorf("%s[%d] (%s): %w: needs permission %s", field, i+1, a.Type, ptywright.ErrPermissionDenied, p)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// actionPermission is the permission an action in a plan needs.
func actionPermission(t ptywright.ActionType) manifest.Permission {
	switch t {
	case ptywright.ActionKill, ptywright.ActionSignal:
		return manifest.PermissionSessionKill
	case ptywright.ActionResize:
		return manifest.PermissionSessionResize
	default:
		return manifest.PermissionInputWrite
	}
}

// decodePredicate reads a predicate's result: a boolean (nil is false) or
// {matched, evidence?, capture?}.
func decodePredicate(res luart.Value) (contract.PredicateOutcome, error) {
	switch {
	case res.IsNil():
		return contract.PredicateOutcome{}, nil
	case res.IsBool():
		return contract.PredicateOutcome{Matched: res.Bool()}, nil
	case res.IsTable():
	default:
		return contract.PredicateOutcome{}, fmt.Errorf("predicate returned %s, want a boolean or {matched, evidence?, capture?}", res.TypeName())
	}
	var out contract.PredicateOutcome
	out.Matched = res.Field("matched").Bool()
	if v := res.Field("evidence"); !v.IsNil() {
		x, err := v.Go("evidence")
		if err != nil {
			return contract.PredicateOutcome{}, err
		}
		out.Evidence = x
	}
	switch v := res.Field("capture"); {
	case v.IsNil():
	case v.IsString(), v.IsNumber():
		s, _ := v.String()
		out.Capture = &s
	default:
		return contract.PredicateOutcome{}, fmt.Errorf("field \"capture\": want a string, got %s", v.TypeName())
	}
	return out, nil
}
