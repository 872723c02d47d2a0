// Package wire holds what the library and its faces (rpc, mcpserver)
// share about the JSON forms they accept: strict decoding and the words
// its errors use (Kind, StrictDecode, AppendUnknownFields, ObjectParams),
// trees of {"type", "value"} nodes such as matchers, with the path that
// names a node in an error (tree.go, path.go), and the one sentinel every
// layer wraps for a caller's bad input, so that an error reads the same
// whichever layer wrote it.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// ErrInvalidParams is ptywright.ErrInvalidParams: the caller's input is
// malformed (-32602 over JSON-RPC). It lives here so that packages the root
// imports (contract) wrap the very same value.
var ErrInvalidParams = errors.New("ptywright: invalid params")

// Kind describes a raw JSON value for error messages without echoing it
// (it may be large or hold secrets): "nothing", "a string", "an object",
// "an array", "a boolean", "null" or "a number".
func Kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// StrictDecode decodes one JSON value into v, refusing fields v does not
// have and anything after the value.
func StrictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// AppendUnknownFields appends prefix+key for each key of m that is not a
// JSON field name of the struct known, sorted.
func AppendUnknownFields(out []string, prefix string, m map[string]json.RawMessage, known any) []string {
	names := map[string]bool{}
	t := reflect.TypeOf(known)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !names[k] {
			out = append(out, prefix+k)
		}
	}
	return out
}

// ObjectParams turns absent or null params into {}, so an intent or a
// matcher can index into them.
func ObjectParams(p json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(p); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}")
	}
	return p
}
