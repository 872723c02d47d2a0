package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"ptywright/internal/wire"
)

// decodeParams decodes a method's params object into dst, a pointer to a
// struct, strictly: member names match json tags exactly (no case folding),
// an unknown member anywhere is an error naming it, a member tagged
// `rpc:"required"` must be present and not null, and a value of the wrong
// type is an error naming its field. Absent params decode as {}. Every error
// wraps ErrInvalidParams.
//
// Fields whose type decodes itself (ptywright.Action, ptywright.Matcher) are
// left to their own strict decoders, whose errors already name the field.
func decodeParams(raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return invalidParams("params", "must be an object, got %s", wire.Kind(raw))
	}
	t := reflect.TypeOf(dst).Elem()
	if err := checkMembers(raw, t, ""); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return paramsError(err)
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// structOf returns the struct type t is or points to, if checkMembers should
// look inside it.
func structOf(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil, false
	}
	return t, true
}

type fieldInfo struct {
	name     string
	required bool
	typ      reflect.Type
}

// fieldsCache holds each params struct's members, computed once.
var fieldsCache sync.Map // reflect.Type -> []fieldInfo

func fieldsOf(t reflect.Type) []fieldInfo {
	if v, ok := fieldsCache.Load(t); ok {
		return v.([]fieldInfo)
	}
	var fs []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fs = append(fs, fieldInfo{name: name, required: f.Tag.Get("rpc") == "required", typ: f.Type})
	}
	fieldsCache.Store(t, fs)
	return fs
}

// checkMembers rejects unknown and missing members of an object of struct
// type t, recursing into nested structs. path prefixes field names.
func checkMembers(raw json.RawMessage, t reflect.Type, path string) error {
	return checkMembersSplit(raw, t, path, objectMembers)
}

// checkMembersSplit is checkMembers with the members that split gives
// (objectMembers: the common object split in one pass, jsonscan.go), or
// when split declines, those encoding/json decodes.
func checkMembersSplit(raw json.RawMessage, t reflect.Type, path string, split func([]byte) ([]member, bool)) error {
	members, ok := split(raw)
	if !ok {
		var err error
		if members, err = objectMembersSlow(raw); err != nil {
			return invalidParams(strings.TrimSuffix(path, "."), "must be an object, got %s", wire.Kind(raw))
		}
	}
	fields := fieldsOf(t)
	// The first unknown member in the order of names.
	unknown, found := "", false
	for _, m := range members {
		known := false
		for _, f := range fields {
			if f.name == m.name {
				known = true
				break
			}
		}
		if !known && (!found || m.name < unknown) {
			unknown, found = m.name, true
		}
	}
	if found {
		allowed := make([]string, len(fields))
		for i, f := range fields {
			allowed[i] = f.name
		}
		if len(allowed) == 0 {
			return invalidParams(path+unknown, "unknown field (this method takes no params)")
		}
		return invalidParams(path+unknown, "unknown field (allowed: %s)", strings.Join(allowed, ", "))
	}
	for _, f := range fields {
		var v json.RawMessage
		ok := false
		for _, m := range members {
			if m.name == f.name {
				v, ok = m.value, true
				break
			}
		}
		present := ok && string(bytes.TrimSpace(v)) != "null"
		if f.required && !present {
			return invalidParams(path+f.name, "required")
		}
		if !present {
			continue
		}
		if err := checkValue(v, f.typ, path+f.name, split); err != nil {
			return err
		}
	}
	return nil
}

// checkValue checks the members of v, the value at path of Go type t: an
// object of a struct type, and each element of an array or object of
// them (a policy's rules, a map of structs), so an unknown member is
// refused at any depth. Values of other types are left to encoding/json.
func checkValue(v json.RawMessage, t reflect.Type, path string, split func([]byte) ([]member, bool)) error {
	if t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct {
		t = t.Elem()
	}
	if st, ok := structOf(t); ok {
		if kind := wire.Kind(v); kind != "an object" {
			return invalidParams(path, "must be an object, got %s", kind)
		}
		return checkMembersSplit(v, st, path+".", split)
	}
	// The elements of an array or map of structs, with their paths; other
	// values, and a value of the wrong kind, are left to encoding/json.
	type element struct {
		path  string
		value json.RawMessage
	}
	var elems []element
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		var arr []json.RawMessage
		if _, ok := structOf(t.Elem()); !ok || wire.Kind(v) != "an array" || json.Unmarshal(v, &arr) != nil {
			return nil
		}
		for i, e := range arr {
			elems = append(elems, element{fmt.Sprintf("%s[%d]", path, i), e})
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if _, ok := structOf(t.Elem()); !ok || wire.Kind(v) != "an object" || json.Unmarshal(v, &m) != nil {
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			elems = append(elems, element{path + "." + k, m[k]})
		}
	}
	for _, e := range elems {
		if string(bytes.TrimSpace(e.value)) == "null" {
			continue
		}
		if err := checkValue(e.value, t.Elem(), e.path, split); err != nil {
			return err
		}
	}
	return nil
}

// objectMembersSlow is objectMembers for any JSON object, with
// encoding/json: names unescaped, the last of a name twice kept.
func objectMembersSlow(raw json.RawMessage) ([]member, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	members := make([]member, 0, len(m))
	for name, v := range m {
		members = append(members, member{name, v})
	}
	return members, nil
}

// paramsError turns a json.Unmarshal error into an invalid-params error
// naming the field.
func paramsError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "params"
		}
		return invalidParams(field, "must be %s, got %s", describeType(te.Type), describeValue(te.Value))
	}
	// Errors of ptywright.Action and ptywright.Matcher name their field and
	// carry their own class (ErrInvalidAction, ErrInvalidMatcher).
	return fmt.Errorf("%w: %w", ErrInvalidParams, err)
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return describeType(t.Elem())
	}
	return t.String()
}

// describeValue turns encoding/json's value description ("string",
// "number 1.5", "object") into words without echoing strings.
func describeValue(v string) string {
	switch {
	case v == "string":
		return "a string"
	case v == "bool":
		return "a boolean"
	case v == "object":
		return "an object"
	case v == "array":
		return "an array"
	case strings.HasPrefix(v, "number"):
		return v
	}
	return v
}
