package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Node is one {"type", "value"} object of a tree (a matcher) decoded in a
// single pass: decoding each level's raw subtree again cost time that grew
// with the depth times the size (a long text under 31 levels was read 150
// times).
type Node struct {
	// Err says why the object is not a node: not an object, an unknown
	// member, a type that is not a string.
	Err  error
	Type string
	// Value is the "value" member as JSON, nil when absent or null; an
	// array's elements are Items instead.
	Value   json.RawMessage
	IsArray bool
	Items   []*Node
}

// DecodeTree decodes data, one JSON value, into its tree of nodes; JSON
// that does not decode is the root's Err.
func DecodeTree(data []byte) *Node {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers keep their text: a Lua predicate's params
	var v any
	if err := dec.Decode(&v); err != nil {
		return &Node{Err: err}
	}
	if dec.More() {
		return &Node{Err: errors.New("trailing data")}
	}
	return toNode(v)
}

// toNode builds the node of v, as decoding v into
// struct{Type string; Value json.RawMessage} with unknown fields refused
// would see it.
func toNode(v any) *Node {
	obj, ok := v.(map[string]any)
	if !ok {
		return &Node{Err: fmt.Errorf("json: cannot unmarshal %s into a matcher object", Kind(mustMarshal(v)))}
	}
	n := &Node{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if k != "type" && k != "value" {
			return &Node{Err: fmt.Errorf("json: unknown field %q", k)}
		}
	}
	switch t := obj["type"].(type) {
	case nil:
	case string:
		n.Type = t
	default:
		return &Node{Err: fmt.Errorf("json: type: cannot unmarshal %s into a string", Kind(mustMarshal(t)))}
	}
	switch val := obj["value"].(type) {
	case nil:
	case []any:
		n.IsArray = true
		n.Value = json.RawMessage("[]") // present; its elements are Items
		for _, e := range val {
			n.Items = append(n.Items, toNode(e))
		}
	default:
		n.Value = mustMarshal(val)
	}
	return n
}

// mustMarshal re-encodes a value StrictDecode produced, which cannot fail.
func mustMarshal(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return raw
}
