package luahost

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/luart"
	"ptywright/internal/wire"
	"ptywright/manifest"
)

// Classify calls the plugin's classify(ctx). state is required; a table
// evidence is JSON-encoded; metadata must convert to a JSON object.
func (e *Extension) Classify(ctx context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	var st ptywright.StateSnapshot
	err := e.call(ctx, "classify", func(a *luart.Args) error { return a.Go(cc) }, func(v luart.Value) (err error) {
		st, err = decodeSnapshot(v)
		return err
	})
	return st, err
}

// Plan calls the intent function with params and the call context
// {plugin, session?, adapter?} (see pushCallContext). An intent is any
// exported function except classify, describe, project, close and the
// *_matcher functions.
func (e *Extension) Plan(ctx context.Context, intent string, params json.RawMessage) (ptywright.ActionPlan, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.Ensure(ctx); err != nil {
		return ptywright.ActionPlan{}, err
	}
	exports := e.rt.Exports()
	if !isIntentName(intent) || !exports[intent] {
		return ptywright.ActionPlan{}, fmt.Errorf("%w: unknown intent %q (intents: %s)", ptywright.ErrInvalidParams, intent, luart.NameList(intentNames(exports)))
	}
	var plan ptywright.ActionPlan
	err := e.rt.Call(ctx, intent, func(a *luart.Args) error {
		if err := pushParams(params)(a); err != nil {
			return err
		}
		a.CallContext()
		return nil
	}, func(v luart.Value) (err error) {
		plan, err = decodePlan(v, e.rt.HasPermission)
		return err
	})
	return plan, err
}

// WaitMatcher calls the *_matcher function named intent with params and
// decodes the matcher table through ptywright.Matcher's JSON form.
func (e *Extension) WaitMatcher(ctx context.Context, intent string, params json.RawMessage) (ptywright.Matcher, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.rt.HasPermission(manifest.PermissionMatcherWait) {
		return ptywright.Matcher{}, fmt.Errorf("%w: plugin %s does not declare %s", ptywright.ErrPermissionDenied, e.rt.Name(), manifest.PermissionMatcherWait)
	}
	if err := e.rt.Ensure(ctx); err != nil {
		return ptywright.Matcher{}, err
	}
	exports := e.rt.Exports()
	if !strings.HasSuffix(intent, "_matcher") || !exports[intent] {
		return ptywright.Matcher{}, fmt.Errorf("%w: unknown wait intent %q (wait matchers: %s)", ptywright.ErrInvalidParams, intent, luart.NameList(matcherNames(exports)))
	}
	var m ptywright.Matcher
	err := e.rt.Call(ctx, intent, pushParams(params), func(v luart.Value) error {
		raw, err := v.JSON("matcher")
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, &m)
	})
	return m, err
}

// Project calls the plugin's optional project(ctx), which returns
// {dialog_text = ..., projector_id = ...}: the screen's dialog with the
// provider's chrome removed. ok is false when the plugin exports none.
func (e *Extension) Project(ctx context.Context, cc ptywright.ClassifyContext) (dialog, projectorID string, ok bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.Ensure(ctx); err != nil {
		return "", "", false, err
	}
	if !e.rt.Exports()["project"] {
		return "", "", false, nil
	}
	err = e.rt.Call(ctx, "project", func(a *luart.Args) error { return a.Go(cc) }, func(v luart.Value) error {
		raw, err := v.JSON("project")
		if err != nil {
			return err
		}
		var out struct {
			DialogText  string `json:"dialog_text"`
			ProjectorID string `json:"projector_id"`
		}
		if err := wire.StrictDecode(raw, &out); err != nil {
			// A newer plugin may return more than dialog_text and
			// projector_id: those are dropped (and logged), never fatal;
			// a field of the wrong type still is.
			if err := json.Unmarshal(raw, &out); err != nil {
				return fmt.Errorf("project: want {dialog_text, projector_id}: %w", err)
			}
			var m map[string]json.RawMessage
			_ = json.Unmarshal(raw, &m)
			e.rt.Logger().Warn("project returned fields this host does not know; dropped",
				"fields", strings.Join(wire.AppendUnknownFields(nil, "", m, out), ", "))
		}
		dialog, projectorID = out.DialogText, out.ProjectorID
		return nil
	})
	return dialog, projectorID, err == nil, err
}

// Describe returns the plugin's catalogue: its own describe() when it
// exports one, otherwise what its exports show.
func (e *Extension) Describe(ctx context.Context) (Description, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.Ensure(ctx); err != nil {
		return Description{}, err
	}
	exports := e.rt.Exports()
	d := Description{Plugin: e.rt.Name(), Manifest: e.rt.Manifest()}
	if !exports["describe"] {
		for _, name := range intentNames(exports) {
			d.Intents = append(d.Intents, DescribeEntry{"name": name})
		}
		for _, name := range matcherNames(exports) {
			d.WaitMatchers = append(d.WaitMatchers, DescribeEntry{"name": name})
		}
		d.normalise()
		return d, nil
	}
	err := e.rt.Call(ctx, "describe", nil, func(v luart.Value) error {
		x, err := v.Go("describe()")
		if err != nil {
			return err
		}
		return d.fill(x)
	})
	return d, err
}

// EvalPredicate calls the exported predicate with the wait's view of the
// session (a lua matcher's branch).
func (e *Extension) EvalPredicate(ctx context.Context, predicate string, in contract.PredicateInput) (contract.PredicateOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.Ensure(ctx); err != nil {
		return contract.PredicateOutcome{}, err
	}
	if !e.rt.Exports()[predicate] {
		return contract.PredicateOutcome{}, fmt.Errorf("%w: plugin %s exports no function %q", ptywright.ErrInvalidMatcher, e.rt.Name(), predicate)
	}
	if len(in.Params) == 0 || string(in.Params) == "null" {
		in.Params = json.RawMessage("{}")
	}
	var out contract.PredicateOutcome
	push := func(a *luart.Args) error {
		if err := a.Go(in); err != nil {
			// Only the matcher's params can fail to convert (the rest is the
			// session's text and numbers): the caller's mistake, as in
			// pushParams, not the plugin's.
			return fmt.Errorf("%w: lua params: %w", ptywright.ErrInvalidMatcher, err)
		}
		return nil
	}
	err := e.rt.Call(ctx, predicate, push, func(v luart.Value) (err error) {
		out, err = decodePredicate(v)
		return err
	})
	return out, err
}

func (e *Extension) call(ctx context.Context, fn string, push func(*luart.Args) error, result func(luart.Value) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.Ensure(ctx); err != nil {
		return err
	}
	return e.rt.Call(ctx, fn, push, result)
}

// pushParams pushes the caller's params. What the bridge cannot take
// (nested deeper than it converts, a number Lua cannot hold exactly) is
// the caller's mistake, an invalid params naming them, not the plugin's.
func pushParams(params json.RawMessage) func(*luart.Args) error {
	return func(a *luart.Args) error {
		if err := a.JSON(wire.ObjectParams(params)); err != nil {
			return fmt.Errorf("%w: params: %w", ptywright.ErrInvalidParams, err)
		}
		return nil
	}
}

func isIntentName(name string) bool {
	return name != "" && manifest.ReservedCallable("intent", name) == ""
}

func intentNames(exports map[string]bool) []string {
	var out []string
	for _, name := range luart.SortedNames(exports) {
		if isIntentName(name) {
			out = append(out, name)
		}
	}
	return out
}

func matcherNames(exports map[string]bool) []string {
	var out []string
	for _, name := range luart.SortedNames(exports) {
		if strings.HasSuffix(name, "_matcher") {
			out = append(out, name)
		}
	}
	return out
}

// Description is plugin.describe's result: what a plugin offers, so
// drivers need not hard-code intent names.
type Description struct {
	Plugin   string            `json:"plugin"`
	Manifest manifest.Manifest `json:"manifest"`
	// Intents are adapter.send intents; WaitMatchers adapter.wait intents;
	// States the classifier's vocabulary (empty when the plugin does not
	// describe itself: it lives inside classify).
	Intents      []DescribeEntry `json:"intents"`
	WaitMatchers []DescribeEntry `json:"wait_matchers"`
	States       []DescribeEntry `json:"states"`
	// Extra holds any other top-level fields a plugin's describe()
	// returned; they are written alongside the others.
	Extra map[string]any `json:"-"`
}

// DescribeEntry is one intent, wait matcher or state: at least "name",
// plus whatever the plugin adds (description, params_schema...).
type DescribeEntry map[string]any

// Name returns the entry's name.
func (d DescribeEntry) Name() string {
	s, _ := d["name"].(string)
	return s
}

// MarshalJSON writes the fixed fields, then Extra's that do not clash.
func (d Description) MarshalJSON() ([]byte, error) {
	type wire Description
	fixed, err := json.Marshal(wire(d))
	if err != nil || len(d.Extra) == 0 {
		return fixed, err
	}
	var merged map[string]json.RawMessage
	if err := json.Unmarshal(fixed, &merged); err != nil {
		return nil, err
	}
	for k, v := range d.Extra {
		if _, taken := merged[k]; taken {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		merged[k] = raw
	}
	return json.Marshal(merged)
}

// fill takes the value a plugin's describe() returned.
func (d *Description) fill(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("describe() must return a table with string keys, got %T", v)
	}
	lists := []struct {
		key string
		dst *[]DescribeEntry
	}{{"intents", &d.Intents}, {"wait_matchers", &d.WaitMatchers}, {"states", &d.States}}
	for _, list := range lists {
		entries, err := describeEntries(list.key, obj[list.key])
		if err != nil {
			return err
		}
		*list.dst = entries
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		switch k {
		case "intents", "wait_matchers", "states", "plugin", "manifest":
			continue
		}
		if d.Extra == nil {
			d.Extra = map[string]any{}
		}
		d.Extra[k] = obj[k]
	}
	d.normalise()
	return nil
}

func describeEntries(key string, v any) ([]DescribeEntry, error) {
	var items []any
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []any:
		items = v
	case map[string]any:
		if len(v) > 0 {
			return nil, fmt.Errorf("describe(): %s must be a list", key)
		}
	default:
		return nil, fmt.Errorf("describe(): %s must be a list, got %T", key, v)
	}
	out := make([]DescribeEntry, 0, len(items))
	for i, item := range items {
		switch item := item.(type) {
		case string:
			out = append(out, DescribeEntry{"name": item})
		case map[string]any:
			if name, _ := item["name"].(string); name == "" {
				return nil, fmt.Errorf("describe(): %s[%d] needs a non-empty string name", key, i+1)
			}
			out = append(out, DescribeEntry(item))
		default:
			return nil, fmt.Errorf("describe(): %s[%d] must be a name or a table with a name, got %T", key, i+1, item)
		}
	}
	return out, nil
}

// normalise makes absent lists empty, so they are [] on the wire.
func (d *Description) normalise() {
	for _, p := range []*[]DescribeEntry{&d.Intents, &d.WaitMatchers, &d.States} {
		if *p == nil {
			*p = []DescribeEntry{}
		}
	}
}
