package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeTree decodes a matcher-shaped tree in one pass: branches become
// Items, leaves keep their value's JSON (numbers as written), and what a
// strict decode into {type, value} would refuse is the node's Err.
func TestDecodeTree(t *testing.T) {
	n := DecodeTree([]byte(`{"type":"any","value":[{"type":"contains_text","value":"ready"},{"type":"lua","value":{"params":{"big":12345678901234567890,"f":0.1}}},{"type":"process_exited"}]}`))
	require.NoError(t, n.Err)
	require.Equal(t, "any", n.Type)
	require.True(t, n.IsArray)
	require.Len(t, n.Items, 3)
	require.Equal(t, "contains_text", n.Items[0].Type)
	require.JSONEq(t, `"ready"`, string(n.Items[0].Value))
	require.Contains(t, string(n.Items[1].Value), "12345678901234567890", "a number keeps its text")
	require.Contains(t, string(n.Items[1].Value), "0.1")
	require.Equal(t, "process_exited", n.Items[2].Type)
	require.Nil(t, n.Items[2].Value)

	for in, want := range map[string]string{
		`{"type":"x","extra":1}`:     `unknown field "extra"`,
		`"text"`:                     "cannot unmarshal a string into a matcher object",
		`{"type":3}`:                 "type: cannot unmarshal a number into a string",
		`{"type":"x"} {}`:            "trailing data",
		`{"type":`:                   "unexpected EOF",
		`{"type":"any","value":[1]}`: "", // the branch's Err, not the root's
	} {
		got := DecodeTree([]byte(in))
		if want == "" {
			require.NoError(t, got.Err, in)
			require.ErrorContains(t, got.Items[0].Err, "cannot unmarshal a number into a matcher object", in)
			continue
		}
		require.ErrorContains(t, got.Err, want, in)
	}
}

// TestPath spells where a node sits and refuses branches past MaxDepth.
func TestPath(t *testing.T) {
	p := Root("matcher").Branch(0).Branch(2)
	require.Equal(t, "matcher.value[0].value[2]", p.String())
	require.Equal(t, 3, p.Depth())
	require.NoError(t, p.Nests())
	deep := Root("matcher")
	for range MaxDepth - 1 {
		deep = deep.Branch(0)
	}
	require.Equal(t, MaxDepth, deep.Depth())
	err := deep.Nests()
	require.ErrorContains(t, err, "nests deeper than 32 levels")
	require.True(t, strings.HasPrefix(err.Error(), "matcher.value[0]"), err.Error())
	var js json.RawMessage = []byte(`{}`)
	require.Equal(t, "an object", Kind(js))
}
