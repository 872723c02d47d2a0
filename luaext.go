package ptywright

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"

	lua "github.com/Shopify/go-lua"

	"ptywright/manifest"
)

// LuaExtension is an Extension whose vocabulary lives in a Lua plugin. The
// plugin's entrypoint returns a module table; the host calls its exported
// functions:
//
//	classify(ctx)        -> {state, confidence?, evidence?, metadata?, last_intent?}
//	<intent>(params)     -> {actions = {...}?, last_intent = "..."?}
//	<name>_matcher(params) -> a matcher table (ptywright.matcher.*)
//	<predicate>(input)   -> boolean or {matched, evidence?, capture?}
//	describe()           -> {intents, wait_matchers, states} (optional)
//
// ctx is ClassifyContext in its JSON form (absent fields are nil). Action
// and matcher tables are decoded through Action's and Matcher's JSON forms,
// so they are validated exactly as a JSON-RPC client's would be; a plan may
// only contain actions the manifest has permission for.
//
// Each LuaExtension owns one Lua state, so module-level values persist
// between its calls and are not shared with any other instance. Calls are
// serialised and bounded by PluginLimits; see luaRuntime for what happens
// to the state after a failed call.
type LuaExtension struct {
	mu sync.Mutex
	rt *luaRuntime

	events luaEvents // handler dispatch (luasdk_ext.go)
}

// LuaOptions tune a LuaExtension.
type LuaOptions struct {
	// Limits bound every call; the zero value means the defaults.
	Limits PluginLimits
	// Events, when set, carries what the plugin emits and the events its
	// handlers receive; nil leaves ptywright.emit a no-op and handlers
	// idle until BindEvents.
	Events *EventBus
	// Scope tags the events the instance emits and its log lines.
	Scope EventScope
	// Logger receives the plugin's ptywright.log records and its handler
	// and cleanup failures, with plugin=<name> attached; nil means
	// slog.Default().
	Logger *slog.Logger
}

// NewLuaExtension validates m, loads source (the entrypoint's text) into a
// fresh Lua state and runs it under the call budget. A syntax error, a
// runtime error or a chunk that does not return a table is a *PluginError
// for function "(load)".
func NewLuaExtension(m manifest.Manifest, source []byte, opts LuaOptions) (*LuaExtension, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Runtime != manifest.RuntimeLua {
		return nil, manifest.FieldError("runtime", "runtime %q cannot run in the Lua host", m.Runtime)
	}
	return newLuaExtension(m, source, opts, false)
}

func newLuaExtension(m manifest.Manifest, source []byte, opts LuaOptions, inline bool) (*LuaExtension, error) {
	e := &LuaExtension{}
	sdk := luaSDK{inline: inline, origin: e, bus: opts.Events, scope: opts.Scope, log: opts.Logger, handled: e.events.setHandled}
	rt, err := newLuaRuntimeSDK(context.Background(), m, source, opts.Limits, sdk)
	if err != nil {
		return nil, err
	}
	e.rt = rt
	if opts.Events != nil {
		e.events.subscribe(opts.Events, e)
	}
	return e, nil
}

// Manifest returns a copy of the plugin's manifest.
func (e *LuaExtension) Manifest() manifest.Manifest { return *e.rt.manifest.Clone() }

// LastOutput returns what the plugin printed during its last call (print
// never reaches the host's stdout), capped at 64 KiB.
func (e *LuaExtension) LastOutput() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rt.lastOutput()
}

// Close shuts the instance down: it stops delivering events to its
// handlers, runs the cleanups still pending (newest first, each once,
// each under the call budget), calls the plugin's close() export if it has
// one, and releases the Lua state. Later calls fail. Failures of the
// plugin's cleanups and close() are logged through its logger, not
// returned: the instance is closed either way.
func (e *LuaExtension) Close() error {
	e.events.stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rt.closed {
		return nil
	}
	ctx := context.Background()
	errs := e.rt.runCleanups(ctx)
	if err := e.rt.callClose(ctx); err != nil {
		errs = append(errs, err)
	}
	for _, err := range errs {
		e.rt.logger().Warn("plugin shutdown failed", "err", DefaultRedactor().Redact(err.Error()))
	}
	e.rt.close()
	return nil
}

// Classify calls the plugin's classify(ctx). state is required; a table
// evidence is JSON-encoded; metadata must convert to a JSON object.
func (e *LuaExtension) Classify(ctx context.Context, cc ClassifyContext) (StateSnapshot, error) {
	var st StateSnapshot
	err := e.call(ctx, "classify", func(l *lua.State) (int, error) {
		return 1, pushGo(l, reflect.ValueOf(cc), 0)
	}, func(l *lua.State) (err error) {
		st, err = e.rt.decodeSnapshot(l)
		return err
	})
	return st, err
}

// Plan calls the intent function with params and the call context
// {plugin, session?, adapter?} (see pushCallContext). An intent is any
// exported function except classify, describe, project, close and the
// *_matcher functions.
func (e *LuaExtension) Plan(ctx context.Context, intent string, params json.RawMessage) (ActionPlan, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.ensure(ctx); err != nil {
		return ActionPlan{}, err
	}
	exports := e.rt.exports()
	if !isIntentName(intent) || !exports[intent] {
		return ActionPlan{}, fmt.Errorf("%w: unknown intent %q (intents: %s)", ErrInvalidParams, intent, nameList(intentNames(exports)))
	}
	var plan ActionPlan
	err := e.rt.callExport(ctx, intent, func(l *lua.State) (int, error) {
		if err := pushJSON(l, objectParams(params)); err != nil {
			return 0, err
		}
		e.rt.pushCallContext(l)
		return 2, nil
	}, func(l *lua.State) (err error) {
		plan, err = e.rt.decodePlan(l)
		return err
	})
	return plan, err
}

// WaitMatcher calls the *_matcher function named intent with params and
// decodes the matcher table through Matcher's JSON form.
func (e *LuaExtension) WaitMatcher(ctx context.Context, intent string, params json.RawMessage) (Matcher, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.rt.manifest.HasPermission(manifest.PermissionMatcherWait) {
		return Matcher{}, fmt.Errorf("%w: plugin %s does not declare %s", ErrPermissionDenied, e.rt.manifest.Name, manifest.PermissionMatcherWait)
	}
	if err := e.rt.ensure(ctx); err != nil {
		return Matcher{}, err
	}
	exports := e.rt.exports()
	if !strings.HasSuffix(intent, "_matcher") || !exports[intent] {
		return Matcher{}, fmt.Errorf("%w: unknown wait intent %q (wait matchers: %s)", ErrInvalidParams, intent, nameList(matcherNames(exports)))
	}
	var m Matcher
	err := e.rt.callExport(ctx, intent, pushParams(params), func(l *lua.State) error {
		raw, err := e.rt.newLuaToGo(l).json(-1, "matcher")
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
func (e *LuaExtension) Project(ctx context.Context, cc ClassifyContext) (dialog, projectorID string, ok bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.ensure(ctx); err != nil {
		return "", "", false, err
	}
	if !e.rt.exports()["project"] {
		return "", "", false, nil
	}
	err = e.rt.callExport(ctx, "project", func(l *lua.State) (int, error) {
		return 1, pushGo(l, reflect.ValueOf(cc), 0)
	}, func(l *lua.State) error {
		raw, err := e.rt.newLuaToGo(l).json(-1, "project")
		if err != nil {
			return err
		}
		var out struct {
			DialogText  string `json:"dialog_text"`
			ProjectorID string `json:"projector_id"`
		}
		if err := strictDecode(raw, &out); err != nil {
			// A newer plugin may return more than dialog_text and
			// projector_id: those are dropped (and logged), never fatal;
			// a field of the wrong type still is.
			if err := json.Unmarshal(raw, &out); err != nil {
				return fmt.Errorf("project: want {dialog_text, projector_id}: %w", err)
			}
			var m map[string]json.RawMessage
			_ = json.Unmarshal(raw, &m)
			e.rt.logger().Warn("project returned fields this host does not know; dropped",
				"fields", strings.Join(appendUnknownFields(nil, "", m, out), ", "))
		}
		dialog, projectorID = out.DialogText, out.ProjectorID
		return nil
	})
	return dialog, projectorID, err == nil, err
}

// Describe returns the plugin's catalogue: its own describe() when it
// exports one, otherwise what its exports show.
func (e *LuaExtension) Describe(ctx context.Context) (PluginDescription, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.ensure(ctx); err != nil {
		return PluginDescription{}, err
	}
	exports := e.rt.exports()
	d := PluginDescription{Plugin: e.rt.manifest.Name, Manifest: *e.rt.manifest.Clone()}
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
	err := e.rt.callExport(ctx, "describe", func(*lua.State) (int, error) { return 0, nil }, func(l *lua.State) error {
		v, err := e.rt.newLuaToGo(l).value(-1, "describe()")
		if err != nil {
			return err
		}
		return d.fill(v)
	})
	return d, err
}

// evalPredicate calls an exported predicate with the wait's view of the
// session.
func (e *LuaExtension) evalPredicate(ctx context.Context, predicate string, in PredicateInput) (PredicateOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.ensure(ctx); err != nil {
		return PredicateOutcome{}, err
	}
	if !e.rt.exports()[predicate] {
		return PredicateOutcome{}, fmt.Errorf("%w: plugin %s exports no function %q", ErrInvalidMatcher, e.rt.manifest.Name, predicate)
	}
	if len(in.Params) == 0 || string(in.Params) == "null" {
		in.Params = json.RawMessage("{}")
	}
	var out PredicateOutcome
	err := e.rt.callExport(ctx, predicate, func(l *lua.State) (int, error) {
		return 1, pushGo(l, reflect.ValueOf(in), 0)
	}, func(l *lua.State) (err error) {
		out, err = e.rt.decodePredicate(l)
		return err
	})
	return out, err
}

func (e *LuaExtension) call(ctx context.Context, fn string, args func(*lua.State) (int, error), result func(*lua.State) error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.rt.ensure(ctx); err != nil {
		return err
	}
	return e.rt.callExport(ctx, fn, args, result)
}

func pushParams(params json.RawMessage) func(*lua.State) (int, error) {
	return func(l *lua.State) (int, error) {
		return 1, pushJSON(l, objectParams(params))
	}
}

// Runtime side of the calls.

// ensure makes the state usable: it fails once closed and replaces a state
// a previous call left untrustworthy.
func (rt *luaRuntime) ensure(ctx context.Context) error {
	if rt.closed {
		return &PluginError{Plugin: rt.manifest.Name, Function: "(call)", Message: "plugin instance is closed", Err: ErrPluginRuntime}
	}
	if rt.l == nil || rt.broken {
		return rt.load(ctx)
	}
	return nil
}

// exports lists the module's function-valued fields.
func (rt *luaRuntime) exports() map[string]bool {
	l := rt.l
	out := map[string]bool{}
	l.Field(lua.RegistryIndex, moduleKey)
	l.PushNil()
	for l.Next(-2) {
		if l.TypeOf(-2) == lua.TypeString && l.IsFunction(-1) {
			k, _ := l.ToString(-2)
			out[k] = true
		}
		l.Pop(1)
	}
	l.Pop(1)
	return out
}

// callExport calls module[fn] with the values args pushes and hands its
// first result, on top of the stack, to result.
func (rt *luaRuntime) callExport(ctx context.Context, fn string, args func(*lua.State) (int, error), result func(*lua.State) error) error {
	return rt.protected(ctx, fn, func(l *lua.State) error {
		l.Field(lua.RegistryIndex, moduleKey)
		l.Field(-1, fn)
		if !l.IsFunction(-1) {
			return fmt.Errorf("the module exports no function %q", fn)
		}
		n, err := args(l)
		if err != nil {
			return err
		}
		l.Call(n, 1)
		return result(l)
	})
}

func isIntentName(name string) bool {
	return name != "" && manifest.ReservedCallable("intent", name) == ""
}

func intentNames(exports map[string]bool) []string {
	var out []string
	for _, name := range sortedNames(exports) {
		if isIntentName(name) {
			out = append(out, name)
		}
	}
	return out
}

func matcherNames(exports map[string]bool) []string {
	var out []string
	for _, name := range sortedNames(exports) {
		if strings.HasSuffix(name, "_matcher") {
			out = append(out, name)
		}
	}
	return out
}

func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// decodeSnapshot reads classify's result.
func (rt *luaRuntime) decodeSnapshot(l *lua.State) (StateSnapshot, error) {
	if !l.IsTable(-1) {
		return StateSnapshot{}, fmt.Errorf("classify returned %s, want a table {state = ...}", lua.TypeNameOf(l, -1))
	}
	res := l.AbsIndex(-1)
	conv := rt.newLuaToGo(l)
	var st StateSnapshot
	l.Field(res, "state")
	st.State, _ = l.ToString(-1)
	if l.TypeOf(-1) != lua.TypeString || st.State == "" {
		return StateSnapshot{}, fmt.Errorf("classify: field \"state\": want a non-empty string, got %s", lua.TypeNameOf(l, -1))
	}
	l.Field(res, "confidence")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeNumber:
		st.Confidence, _ = l.ToNumber(-1)
		if math.IsNaN(st.Confidence) {
			return StateSnapshot{}, errors.New("classify: field \"confidence\": NaN")
		}
	default:
		return StateSnapshot{}, fmt.Errorf("classify: field \"confidence\": want a number, got %s", lua.TypeNameOf(l, -1))
	}
	l.Field(res, "evidence")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeString:
		st.Evidence, _ = l.ToString(-1)
	default:
		raw, err := conv.json(-1, "classify: evidence")
		if err != nil {
			return StateSnapshot{}, err
		}
		st.Evidence = string(raw)
	}
	l.Field(res, "metadata")
	if !l.IsNil(-1) {
		v, err := conv.value(-1, "classify: metadata")
		if err != nil {
			return StateSnapshot{}, err
		}
		md, ok := v.(map[string]any)
		if !ok {
			return StateSnapshot{}, errors.New("classify: field \"metadata\": want a table with string keys")
		}
		st.Metadata = md
	}
	l.Field(res, "last_intent")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeString:
		if s, _ := l.ToString(-1); s != "" {
			st.LastIntent = &s
		}
	default:
		return StateSnapshot{}, fmt.Errorf("classify: field \"last_intent\": want a string, got %s", lua.TypeNameOf(l, -1))
	}
	l.Field(res, "input_settle_ms")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeNumber:
		v, _ := l.ToNumber(-1)
		if v < 0 || v > 60000 || math.IsNaN(v) {
			return StateSnapshot{}, fmt.Errorf("classify: field \"input_settle_ms\": want 0..60000, got %v", v)
		}
		st.InputSettleMs = int64(v)
	default:
		return StateSnapshot{}, fmt.Errorf("classify: field \"input_settle_ms\": want a number, got %s", lua.TypeNameOf(l, -1))
	}
	l.Field(res, "assessment")
	if !l.IsNil(-1) {
		raw, err := conv.json(-1, "classify: assessment")
		if err != nil {
			return StateSnapshot{}, err
		}
		a, err := decodeAssessment(raw)
		if err != nil {
			return StateSnapshot{}, fmt.Errorf("classify: field \"assessment\": %w", err)
		}
		st.Assessment = &a
	}
	return st, nil
}

// decodePlan reads an intent's result.
func (rt *luaRuntime) decodePlan(l *lua.State) (ActionPlan, error) {
	if !l.IsTable(-1) {
		return ActionPlan{}, fmt.Errorf("intent returned %s, want a table {actions = {...}, last_intent = ...}", lua.TypeNameOf(l, -1))
	}
	res := l.AbsIndex(-1)
	var plan ActionPlan
	l.Field(res, "actions")
	if !l.IsNil(-1) {
		acts, err := rt.decodeActions(l, "actions")
		if err != nil {
			return ActionPlan{}, err
		}
		plan.Actions = acts
	}
	l.Field(res, "last_intent")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeString:
		s, _ := l.ToString(-1)
		plan.LastIntent = &s
	default:
		return ActionPlan{}, fmt.Errorf("field \"last_intent\": want a string, got %s", lua.TypeNameOf(l, -1))
	}
	l.Field(res, "expect")
	if !l.IsNil(-1) {
		raw, err := rt.newLuaToGo(l).json(-1, "expect")
		if err != nil {
			return ActionPlan{}, err
		}
		e, err := decodeExpectation(raw)
		if err != nil {
			return ActionPlan{}, fmt.Errorf("field \"expect\": %w", err)
		}
		plan.Expect = e
	}
	l.Field(res, "retry")
	if !l.IsNil(-1) {
		acts, err := rt.decodeActions(l, "retry")
		if err != nil {
			return ActionPlan{}, err
		}
		plan.Retry = acts
	}
	l.Field(res, "resend")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeBoolean:
		plan.Resend = l.ToBoolean(-1)
	default:
		return ActionPlan{}, fmt.Errorf("field \"resend\": want a boolean, got %s", lua.TypeNameOf(l, -1))
	}
	return plan, nil
}

// decodeExpectation reads a plan's expect: an expectation table
// {matcher?, states?, leave?, within_ms?}, or a bare matcher as shorthand
// for {matcher = m}.
func decodeExpectation(raw []byte) (*Expectation, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("want a table: %w", err)
	}
	if _, bare := probe["type"]; bare {
		var m Matcher
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		return &Expectation{Matcher: &m}, nil
	}
	if states, ok := probe["states"]; ok && string(states) == "{}" {
		probe["states"] = json.RawMessage("[]") // An empty Lua table.
		raw, _ = json.Marshal(probe)
	}
	var e Expectation
	if err := strictDecode(raw, &e); err != nil {
		return nil, err
	}
	return &e, e.validate()
}

// decodeActions reads the list of actions at the top of the stack (a plan's
// actions or retry), checking each against the manifest's permissions.
func (rt *luaRuntime) decodeActions(l *lua.State, field string) ([]Action, error) {
	v, err := rt.newLuaToGo(l).value(-1, field)
	if err != nil {
		return nil, err
	}
	var list []any
	switch v := v.(type) {
	case []any:
		list = v
	case map[string]any:
		if len(v) > 0 {
			return nil, fmt.Errorf("field %q: want a list of actions, got a table with string keys", field)
		}
	default:
		return nil, fmt.Errorf("field %q: want a list of actions, got %s", field, lua.TypeNameOf(l, -1))
	}
	var acts []Action
	for i, item := range list {
		raw, err := marshalJSON(item)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i+1, err)
		}
		var a Action
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i+1, err)
		}
		if p := actionPermission(a.Type); p != "" && !rt.manifest.HasPermission(p) {
			return nil, fmt.Errorf("%s[%d] (%s): %w: needs permission %s", field, i+1, a.Type, ErrPermissionDenied, p)
		}
		acts = append(acts, a)
	}
	return acts, nil
}

// actionPermission is the permission an action in a plan needs.
func actionPermission(t ActionType) manifest.Permission {
	switch t {
	case ActionKill, ActionSignal:
		return manifest.PermissionSessionKill
	case ActionResize:
		return manifest.PermissionSessionResize
	default:
		return manifest.PermissionInputWrite
	}
}

// decodePredicate reads a predicate's result: a boolean (nil is false) or
// {matched, evidence?, capture?}.
func (rt *luaRuntime) decodePredicate(l *lua.State) (PredicateOutcome, error) {
	switch l.TypeOf(-1) {
	case lua.TypeNil:
		return PredicateOutcome{}, nil
	case lua.TypeBoolean:
		return PredicateOutcome{Matched: l.ToBoolean(-1)}, nil
	case lua.TypeTable:
	default:
		return PredicateOutcome{}, fmt.Errorf("predicate returned %s, want a boolean or {matched, evidence?, capture?}", lua.TypeNameOf(l, -1))
	}
	res := l.AbsIndex(-1)
	var out PredicateOutcome
	l.Field(res, "matched")
	out.Matched = l.ToBoolean(-1)
	l.Field(res, "evidence")
	if !l.IsNil(-1) {
		v, err := rt.newLuaToGo(l).value(-1, "evidence")
		if err != nil {
			return PredicateOutcome{}, err
		}
		out.Evidence = v
	}
	l.Field(res, "capture")
	switch l.TypeOf(-1) {
	case lua.TypeNil:
	case lua.TypeString, lua.TypeNumber:
		s, _ := l.ToString(-1)
		out.Capture = &s
	default:
		return PredicateOutcome{}, fmt.Errorf("field \"capture\": want a string, got %s", lua.TypeNameOf(l, -1))
	}
	return out, nil
}

// PluginDescription is plugin.describe's result: what a plugin offers, so
// drivers need not hard-code intent names.
type PluginDescription struct {
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
func (d PluginDescription) MarshalJSON() ([]byte, error) {
	type wire PluginDescription
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
func (d *PluginDescription) fill(v any) error {
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
func (d *PluginDescription) normalise() {
	for _, p := range []*[]DescribeEntry{&d.Intents, &d.WaitMatchers, &d.States} {
		if *p == nil {
			*p = []DescribeEntry{}
		}
	}
}
