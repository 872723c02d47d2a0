package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The structural rules of the OpenRPC 1.3 meta-schema, checked in Go over a
// document decoded into generic JSON values (json.Number for numbers).

// jsonSchemaTypes are JSON Schema's type names.
var jsonSchemaTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "string": true, "integer": true}

// The members the meta-schema allows on each object; "x-" extensions are
// allowed on all of them.
var (
	openRPCDocMembers    = []string{"openrpc", "info", "servers", "methods", "components", "externalDocs", "$schema"}
	openRPCInfoMembers   = []string{"title", "description", "termsOfService", "version", "contact", "license"}
	openRPCMethodMembers = []string{"name", "description", "summary", "servers", "tags", "paramStructure", "params", "result", "deprecated", "externalDocs", "errors", "links", "examples"}
	contentDescMembers   = []string{"name", "description", "summary", "schema", "required", "deprecated"}
	openRPCErrorMembers  = []string{"code", "message", "data"}
	componentNameRe      = regexp.MustCompile(`^[a-zA-Z0-9.\-_]+$`)
)

// decodeJSON decodes raw keeping numbers as json.Number, so integers can
// be told from other numbers.
func decodeJSON(t testing.TB, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	return v
}

func object(t testing.TB, v any, where string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "%s: want an object, got %T", where, v)
	return m
}

func str(t testing.TB, v any, where string) string {
	t.Helper()
	s, ok := v.(string)
	require.True(t, ok, "%s: want a string, got %T", where, v)
	return s
}

// onlyMembers fails on a member the meta-schema does not allow.
func onlyMembers(t testing.TB, m map[string]any, allowed []string, where string) {
	t.Helper()
	for name := range m {
		if strings.HasPrefix(name, "x-") {
			continue
		}
		require.Contains(t, allowed, name, "%s: member %q is not in the OpenRPC meta-schema", where, name)
	}
}

// checkOpenRPC checks doc against the meta-schema's structure and returns
// its methods and notifications by name.
func checkOpenRPC(t testing.TB, doc map[string]any) (methods, notes map[string]map[string]any) {
	t.Helper()
	onlyMembers(t, doc, openRPCDocMembers, "document")
	require.Regexp(t, `^1\.3\.\d+$`, str(t, doc["openrpc"], "openrpc"))
	info := object(t, doc["info"], "info")
	onlyMembers(t, info, openRPCInfoMembers, "info")
	require.NotEmpty(t, str(t, info["title"], "info.title"))
	require.NotEmpty(t, str(t, info["version"], "info.version"))

	components := map[string]any{}
	if c, ok := doc["components"]; ok {
		schemas := object(t, object(t, c, "components")["schemas"], "components.schemas")
		for name, s := range schemas {
			require.Regexp(t, componentNameRe, name)
			components[name] = s
		}
		for name, s := range schemas {
			checkSchema(t, s, components, "components.schemas."+name)
		}
	}
	methods = checkMethods(t, doc["methods"], components, "methods", true)
	notes = checkMethods(t, doc["x-notifications"], components, "x-notifications", false)
	return methods, notes
}

// checkMethods checks a list of method objects (notifications have no
// result) and returns them by name.
func checkMethods(t testing.TB, v any, components map[string]any, where string, withResult bool) map[string]map[string]any {
	t.Helper()
	list, ok := v.([]any)
	require.True(t, ok, "%s: want an array, got %T", where, v)
	byName := map[string]map[string]any{}
	var names []string
	for i, mv := range list {
		m := object(t, mv, fmt.Sprintf("%s[%d]", where, i))
		onlyMembers(t, m, openRPCMethodMembers, where)
		name := str(t, m["name"], where+".name")
		require.NotEmpty(t, name)
		require.NotContains(t, byName, name, "%s: method names are unique", where)
		byName[name] = m
		names = append(names, name)
		at := where + "." + name
		require.Equal(t, "by-name", m["paramStructure"], at)
		params, ok := m["params"].([]any)
		require.True(t, ok, "%s.params: want an array", at)
		seen := map[string]bool{}
		for _, p := range params {
			pn := checkContentDescriptor(t, p, components, at+".params")
			require.False(t, seen[pn], "%s: param %q twice", at, pn)
			seen[pn] = true
		}
		if withResult {
			require.Contains(t, m, "result", at)
			checkContentDescriptor(t, m["result"], components, at+".result")
		} else {
			require.NotContains(t, m, "result", at)
		}
		if errs, ok := m["errors"]; ok {
			el, ok := errs.([]any)
			require.True(t, ok, "%s.errors: want an array", at)
			for _, e := range el {
				eo := object(t, e, at+".errors")
				onlyMembers(t, eo, openRPCErrorMembers, at+".errors")
				code, ok := eo["code"].(json.Number)
				require.True(t, ok, "%s: error code: want a number", at)
				_, err := code.Int64()
				require.NoError(t, err, "%s: error code %s: want an integer", at, code)
				require.NotEmpty(t, str(t, eo["message"], at+".errors.message"))
			}
		}
	}
	require.True(t, sort.StringsAreSorted(names), "%s are sorted by name", where)
	return byName
}

func checkContentDescriptor(t testing.TB, v any, components map[string]any, where string) string {
	t.Helper()
	cd := object(t, v, where)
	onlyMembers(t, cd, contentDescMembers, where)
	name := str(t, cd["name"], where+".name")
	require.NotEmpty(t, name, where)
	if r, ok := cd["required"]; ok {
		_, ok := r.(bool)
		require.True(t, ok, "%s.required: want a boolean", where)
	}
	require.Contains(t, cd, "schema", where)
	checkSchema(t, cd["schema"], components, where+"."+name)
	return name
}

// checkSchema checks the JSON Schema subset rpc.discover uses: type names,
// references that resolve, required members that exist.
func checkSchema(t testing.TB, v any, components map[string]any, where string) {
	t.Helper()
	s := object(t, v, where)
	if ref, ok := s["$ref"]; ok {
		r := str(t, ref, where+".$ref")
		if r != openRPCMetaSchema {
			require.True(t, strings.HasPrefix(r, schemaRefPrefix), "%s: $ref %q", where, r)
			require.Contains(t, components, strings.TrimPrefix(r, schemaRefPrefix), "%s: $ref %q does not resolve", where, r)
		}
	}
	switch typ := s["type"].(type) {
	case nil:
	case string:
		require.True(t, jsonSchemaTypes[typ], "%s: type %q", where, typ)
	case []any:
		for _, tv := range typ {
			require.True(t, jsonSchemaTypes[str(t, tv, where+".type")], "%s: type %v", where, tv)
		}
	default:
		t.Fatalf("%s: type: want a string or an array, got %T", where, typ)
	}
	props := map[string]any{}
	if p, ok := s["properties"]; ok {
		props = object(t, p, where+".properties")
		for name, ps := range props {
			checkSchema(t, ps, components, where+"."+name)
		}
	}
	if r, ok := s["required"]; ok {
		for _, name := range r.([]any) {
			require.Contains(t, props, str(t, name, where+".required"), "%s: required member is not a property", where)
		}
	}
	if items, ok := s["items"]; ok {
		checkSchema(t, items, components, where+"[]")
	}
	if ap, ok := s["additionalProperties"]; ok {
		if _, isBool := ap.(bool); !isBool {
			checkSchema(t, ap, components, where+".*")
		}
	}
	if anyOf, ok := s["anyOf"]; ok {
		for i, sub := range anyOf.([]any) {
			checkSchema(t, sub, components, fmt.Sprintf("%s.anyOf[%d]", where, i))
		}
	}
}

// validate checks value v against schema s (the subset checkSchema
// allows), resolving references in components; it returns the first
// mismatch, "" when v conforms.
func validate(s map[string]any, v any, components map[string]any, where string) string {
	if ref, ok := s["$ref"].(string); ok {
		target, ok := components[strings.TrimPrefix(ref, schemaRefPrefix)].(map[string]any)
		if !ok {
			return where + ": unresolved " + ref
		}
		return validate(target, v, components, where)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		var why []string
		for _, sub := range anyOf {
			msg := validate(sub.(map[string]any), v, components, where)
			if msg == "" {
				return ""
			}
			why = append(why, msg)
		}
		return strings.Join(why, "; or ")
	}
	if typ, ok := s["type"]; ok {
		var types []string
		switch tv := typ.(type) {
		case string:
			types = []string{tv}
		case []any:
			for _, x := range tv {
				types = append(types, x.(string))
			}
		}
		kind := jsonKind(v)
		if !slices.Contains(types, kind) && !(kind == "integer" && slices.Contains(types, "number")) {
			return fmt.Sprintf("%s: got %s, want %v", where, kind, types)
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == v
		}
		if !found {
			return fmt.Sprintf("%s: %v is not one of %v", where, v, enum)
		}
	}
	switch val := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, name := range req {
				if _, ok := val[name.(string)]; !ok {
					return fmt.Sprintf("%s: required member %q missing", where, name)
				}
			}
		}
		for name, mv := range val {
			if ps, ok := props[name].(map[string]any); ok {
				if msg := validate(ps, mv, components, where+"."+name); msg != "" {
					return msg
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Sprintf("%s: member %q is not in the schema", where, name)
				}
			case map[string]any:
				if msg := validate(ap, mv, components, where+"."+name); msg != "" {
					return msg
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range val {
				if msg := validate(items, x, components, fmt.Sprintf("%s[%d]", where, i)); msg != "" {
					return msg
				}
			}
		}
	case json.Number:
		if min, ok := s["minimum"].(json.Number); ok {
			if n, _ := val.Float64(); n < mustFloat(min) {
				return fmt.Sprintf("%s: %s is below the minimum %s", where, val, min)
			}
		}
	}
	return ""
}

// jsonKind is v's JSON Schema type, "integer" for a number without a
// fraction or exponent.
func jsonKind(v any) string {
	switch val := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := val.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func mustFloat(n json.Number) float64 {
	f, _ := n.Float64()
	return f
}
