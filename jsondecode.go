package ptywright

// The strict decoding the wire forms (actions, matchers, sizes) share:
// exact field names, no nulls where a value is required, integers that
// fit.

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"ptywright/internal/wire"
)

// decodeObject decodes a JSON object into its raw members, rejecting any
// other JSON kind with an error naming field.
func decodeObject(data []byte, field string) (map[string]json.RawMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, actionError(field, "must be a JSON object, got %s", wire.Kind(data))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, &FieldError{Field: field, Reason: "malformed JSON: " + err.Error(), Err: ErrInvalidAction}
	}
	return obj, nil
}

// sortedKeys makes error reporting deterministic when several fields are bad.
func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func requireString(raw json.RawMessage, present bool, field string) (string, error) {
	if !present {
		return "", actionError(field, "required (a string)")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", actionError(field, "must be a string, got %s", wire.Kind(raw))
	}
	return s, nil
}

// decodeSize decodes {"rows","cols","pixel_width"?,"pixel_height"?} with
// integer-only members, then applies Size.Validate.
func decodeSize(raw json.RawMessage, field string) (Size, error) {
	obj, err := decodeObject(raw, field)
	if err != nil {
		return Size{}, err
	}
	var s Size
	targets := map[string]*int{"rows": &s.Rows, "cols": &s.Cols, "pixel_width": &s.PixelWidth, "pixel_height": &s.PixelHeight}
	for _, name := range sortedKeys(obj) {
		dst, ok := targets[name]
		if !ok {
			return Size{}, actionError(field+"."+name, "unknown field (allowed: rows, cols, pixel_width, pixel_height)")
		}
		if isNull(obj[name]) {
			continue
		}
		if *dst, err = decodeInt(obj[name], field+"."+name); err != nil {
			return Size{}, err
		}
	}
	for _, name := range []string{"rows", "cols"} {
		if v, ok := obj[name]; !ok || isNull(v) {
			return Size{}, actionError(field+"."+name, "required")
		}
	}
	if err := s.ValidateCells(sideBoundsOnly); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return Size{}, &FieldError{Field: field + "." + fe.Field, Reason: fe.Reason, Err: errors.Join(ErrInvalidAction, ErrInvalidSize)}
		}
		return Size{}, &FieldError{Field: field, Reason: err.Error(), Err: errors.Join(ErrInvalidAction, ErrInvalidSize)}
	}
	return s, nil
}

func decodeInt(raw json.RawMessage, field string) (int, error) {
	raw = bytes.TrimSpace(raw)
	// json.Number also accepts a quoted number; the wire form does not.
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, actionError(field, "must be an integer, got %s", wire.Kind(raw))
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, actionError(field, "must be an integer, got %s", wire.Kind(raw))
	}
	v, err := strconv.ParseInt(string(n), 10, 32)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, actionError(field, "out of range, got %s", n)
	case err != nil:
		return 0, actionError(field, "must be an integer, got %s", n)
	}
	return int(v), nil
}
