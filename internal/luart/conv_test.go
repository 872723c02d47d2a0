package luart

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	lua "ptywright/internal/golua"
	"ptywright/manifest"
)

// jsonForm is what encoding/json makes of v, with integral numbers as
// int64 the way luaToGo reports them.
func jsonForm(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	got, err := decodeJSON(raw)
	require.NoError(t, err)
	return intsOf(got)
}

func intsOf(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = intsOf(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = intsOf(v[k])
		}
		// Absent and null are the same in Lua.
		for k, e := range v {
			if e == nil {
				delete(v, k)
			}
		}
	}
	return v
}

// Shapes of the host's types pushGo meets (ptywright.ClassifyContext,
// PredicateInput, Matcher, StateSnapshot): tags, omitempty, pointers,
// raw JSON, maps, and a type with its own MarshalJSON.
type testContext struct {
	Screen                string  `json:"screen"`
	BodyText              string  `json:"body_text"`
	StatusText            string  `json:"status_text,omitempty"`
	Transcript            *string `json:"transcript,omitempty"`
	LastIntent            *string `json:"last_intent"`
	StableMs              *int64  `json:"stable_ms,omitempty"`
	CompletedTurnStableMs *int64  `json:"completed_turn_stable_ms,omitempty"`
	Sequence              uint64  `json:"sequence"`
	hidden                int
}

type testInput struct {
	Screen  string           `json:"screen"`
	Markers map[string]int64 `json:"markers,omitempty"`
	Cursor  int              `json:"cursor"`
	Params  json.RawMessage  `json:"params,omitempty"`
}

type testMatcher struct {
	typ   string
	value any
}

func (m testMatcher) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"type": m.typ, "value": m.value})
}

type testSnapshot struct {
	State      string         `json:"state"`
	Confidence float64        `json:"confidence"`
	Evidence   string         `json:"evidence,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// TestPushGoIsTheJSONForm checks that the reflect fast path hands Lua
// exactly what a JSON round trip would: tags, omitted and null fields,
// nested values and types with their own MarshalJSON.
func TestPushGoIsTheJSONForm(t *testing.T) {
	tr, li, ms := "tail", "sent", int64(1500)
	values := []any{
		testContext{Screen: "a\nb", BodyText: "a", StatusText: "", Sequence: 9, hidden: 7}, // hidden: unexported, never pushed
		testContext{Screen: "s", Transcript: &tr, LastIntent: &li, StableMs: &ms, CompletedTurnStableMs: &ms, Sequence: 1 << 40},
		testInput{Screen: "x", Markers: map[string]int64{"turn": 4}, Cursor: 12, Params: json.RawMessage(`{"a":[1,2.5,"z",null,{"b":false}]}`)},
		testInput{},
		manifest.Manifest{Name: "m", Kind: manifest.KindAdapter, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"},
		map[string]any{"nested": []any{map[string]any{"x": 1.25}}, "n": 3},
		[]testMatcher{{"contains_text", "ready"}, {"screen_stable", 0}},
		testSnapshot{State: "s", Confidence: 0.5, Metadata: map[string]any{"k": []any{}}},
	}
	for _, v := range values {
		t.Run(reflect.TypeOf(v).String(), func(t *testing.T) {
			l := lua.NewState()
			require.NoError(t, pushGo(l, reflect.ValueOf(v), 0))
			got, err := newLuaToGo(l, nil).value(-1, "v")
			require.NoError(t, err)
			want := jsonForm(t, v)
			// Lua cannot tell an empty list from an empty object.
			if strings.Contains(mustMarshal(t, want), "[]") {
				require.JSONEq(t, strings.ReplaceAll(mustMarshal(t, want), "[]", "{}"), mustMarshal(t, got))
				return
			}
			require.Equal(t, want, got)
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

func TestLuaToGoRules(t *testing.T) {
	tests := []struct {
		src  string
		want any
		err  string
	}{
		{`return 3`, int64(3), ""},
		{`return -0.5`, -0.5, ""},
		{`return 2^53`, int64(1 << 53), ""},
		{`return -2^53`, int64(-1 << 53), ""},
		// Beyond ±2^53 a Lua number is a double and goes out as one, in
		// floating form, so it comes back in as the same double.
		{`return 2^60`, json.Number("1.152921504606847e+18"), ""},
		{`return {n = -2^53 - 2}`, map[string]any{"n": json.Number("-9.007199254740994e+15")}, ""},
		{`return 1e300`, json.Number("1e+300"), ""},
		{`return 1/0`, nil, "v: number +Inf has no JSON form"},
		{`return {}`, map[string]any{}, ""},
		{`return {"a", {}, {x = true}}`, []any{"a", map[string]any{}, map[string]any{"x": true}}, ""},
		{`return {[1] = "a", [2] = "b"}`, []any{"a", "b"}, ""},
		{`return {[2] = "b"}`, []any{nil, "b"}, ""},
		{`return {[1] = 1, [3] = 3}`, []any{int64(1), nil, int64(3)}, ""},
		{`return {[100] = "b"}`, nil, "v: array is too sparse (largest key 100, only 1 keys)"},
		{`return {[1e9] = "b", [1] = 1}`, nil, "too sparse"},
		{`return {[0] = "z"}`, nil, "v: table has a number key 0"},
		{`return {[1.5] = "z"}`, nil, "number key 1.5"},
		{`return {[true] = 1}`, nil, "v: table has a boolean key"},
		{`return {a = {b = {c = print}}}`, nil, "v.a.b.c: a Lua function has no JSON form"},
		{`local t = {} t[1] = t return t`, nil, "v[1]: table contains itself"},
		{`local s = {1} return {s, s, {s}}`, []any{[]any{int64(1)}, []any{int64(1)}, []any{[]any{int64(1)}}}, ""},
		{`local t = {} for i = 1, 150 do t = {t} end return t`, nil, "nested deeper than 100 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			l := lua.NewState()
			lua.OpenLibraries(l)
			require.NoError(t, lua.DoString(l, tt.src))
			got, err := newLuaToGo(l, nil).value(-1, "v")
			if tt.err != "" {
				require.ErrorIs(t, err, errConvert)
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			if tt.want != nil {
				require.Equal(t, tt.want, got)
			}
		})
	}
}

func TestPushJSONLimits(t *testing.T) {
	l := lua.NewState()
	deep := strings.Repeat("[", 150) + strings.Repeat("]", 150)
	require.ErrorContains(t, pushJSON(l, []byte(deep)), "nested deeper than 100 levels")
	require.ErrorContains(t, pushJSON(l, []byte(`{"a":1} 2`)), "trailing data")
	require.NoError(t, pushJSON(l, nil))
	require.True(t, l.IsNil(-1))
}
