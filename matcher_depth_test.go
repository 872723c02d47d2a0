package ptywright

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestAny wraps leaf in depth any-matchers.
func nestAny(depth int, leaf Matcher) Matcher {
	for range depth {
		leaf = Any(leaf)
	}
	return leaf
}

// TestMatcherDepthLimit: any, all and none nest at most 32 levels, whether
// the tree comes as JSON or is built in Go, and the error names the node
// whose branches would go too deep.
func TestMatcherDepthLimit(t *testing.T) {
	deepest := nestAny(31, ContainsText("x"))
	require.NoError(t, deepest.Validate())
	raw, err := json.Marshal(deepest)
	require.NoError(t, err)
	var back Matcher
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, deepest, back)

	want := "matcher" + strings.Repeat(".value[0]", 31) + ".value: nests deeper than 32 levels"
	tooDeep := nestAny(32, ContainsText("x"))
	err = tooDeep.Validate()
	require.ErrorIs(t, err, ErrInvalidMatcher)
	assert.Contains(t, err.Error(), want)
	raw, err = json.Marshal(tooDeep)
	require.NoError(t, err)
	err = json.Unmarshal(raw, &back)
	require.ErrorIs(t, err, ErrInvalidMatcher)
	assert.Contains(t, err.Error(), want)

	// A later branch is named by its index; errors deep inside an allowed
	// tree still name their node.
	err = json.Unmarshal([]byte(`{"type":"all","value":[{"type":"process_exited"},{"type":"any","value":[{"type":"contains_text","value":""}]}]}`), &back)
	require.ErrorIs(t, err, ErrInvalidMatcher)
	assert.Contains(t, err.Error(), "matcher.value[1].value[0].value: must not be empty")
}

// deepMatcherJSON is an any-matcher nested depth levels around a leaf.
func deepMatcherJSON(depth int) []byte {
	return []byte(strings.Repeat(`{"type":"any","value":[`, depth) + `{"type":"contains_text","value":"x"}` + strings.Repeat(`]}`, depth))
}

// BenchmarkMatcherUnmarshalDeep decodes the deepest allowed matcher and
// refuses a 4000-deep one (160 KB). The tree is decoded in one pass
// (wire.DecodeTree): before, each level decoded its subtree again and
// built its path string, and a 1000-deep matcher took 3.5 s.
func BenchmarkMatcherUnmarshalDeep(b *testing.B) {
	for _, depth := range []int{31, 4000} {
		data := deepMatcherJSON(depth)
		b.Run(map[int]string{31: "allowed-31", 4000: "refused-4000"}[depth], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var m Matcher
				_ = json.Unmarshal(data, &m)
			}
		})
	}
}

// TestMatcherDecodedOnceKeepsItsLeaves: the one-pass decode hands each leaf
// what the old per-level decode did: a Lua predicate's params keep their
// numbers exactly, unknown members and non-object branches are refused
// naming the node.
func TestMatcherDecodedOnceKeepsItsLeaves(t *testing.T) {
	var m Matcher
	require.NoError(t, json.Unmarshal([]byte(`{"type":"all","value":[{"type":"lua","value":{"plugin":"p","predicate":"f","params":{"n":9007199254740993,"f":1.50,"s":"<&>"}}}]}`), &m))
	d := json.NewDecoder(strings.NewReader(string(m.Matchers[0].Lua.Params)))
	d.UseNumber()
	var raw map[string]any
	require.NoError(t, d.Decode(&raw))
	assert.Equal(t, json.Number("9007199254740993"), raw["n"])
	assert.Equal(t, json.Number("1.50"), raw["f"])
	assert.Equal(t, "<&>", raw["s"])
	for src, want := range map[string]string{
		`{"type":"any","value":[{"type":"contains_text","value":"x","extra":1}]}`: `matcher.value[0]: json: unknown field "extra"`,
		`{"type":"any","value":["x"]}`:                                            `matcher.value[0]: json: cannot unmarshal a string into a matcher object`,
		`{"type":5}`:                                                              `matcher: json: type: cannot unmarshal a number into a string`,
		`{"type":"any","value":{"type":"process_exited"}}`:                        `matcher.value: must be an array of matchers`,
		`{"type":"contains_text","value":["x"]}`:                                  `matcher.value: must be a string`,
	} {
		err := json.Unmarshal([]byte(src), &m)
		require.ErrorIs(t, err, ErrInvalidMatcher, src)
		assert.Contains(t, err.Error(), want, src)
	}
}
