//go:build unix

package rpc

import (
	"encoding/json"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/plugins"
)

// discoverServers are the two method tables: without a plugin registry
// (session.* and server.*) and with one (adapter.* and plugin.* too).
var discoverServers = []struct {
	name string
	opts func(t *testing.T) Options
}{
	{"without plugins", func(*testing.T) Options { return Options{Version: "1.2.3"} }},
	{"with plugins", func(t *testing.T) Options {
		return Options{Version: "1.2.3", Plugins: newPlugins(t, echoManifest), AllowPluginLoad: true}
	}},
}

// discoverDoc calls rpc.discover and returns the document, checked against
// the OpenRPC meta-schema's structure, and its methods and notifications.
func discoverDoc(t *testing.T, c *client) (doc map[string]any, methods, notes map[string]map[string]any) {
	t.Helper()
	raw, rpcErr := c.call("rpc.discover", nil)
	require.Nil(t, rpcErr)
	doc = object(t, decodeJSON(t, raw), "result")
	methods, notes = checkOpenRPC(t, doc)
	return doc, methods, notes
}

// TestDiscover: rpc.discover answers an OpenRPC document whose methods and
// notifications are exactly server.capabilities', with and without a
// plugin registry, and whose error codes are all in error_codes.
func TestDiscover(t *testing.T) {
	for _, tt := range discoverServers {
		t.Run(tt.name, func(t *testing.T) {
			c := dialUnix(t, serveUnix(t, newServer(t, tt.opts(t))), NDJSON)
			doc, methods, notes := discoverDoc(t, c)
			var caps Capabilities
			c.do("server.capabilities", nil, &caps)

			require.Equal(t, caps.Methods, sortedKeys(methods))
			require.Contains(t, caps.Methods, "rpc.discover")
			require.Equal(t, caps.Notifications, sortedKeys(notes))
			info := doc["info"].(map[string]any)
			require.Equal(t, "ptywright", info["title"])
			require.Equal(t, caps.Version, info["version"])

			codes := map[int64]bool{}
			for _, code := range caps.ErrorCodes {
				codes[code] = true
			}
			for name, m := range methods {
				errs, _ := m["errors"].([]any)
				require.NotEmpty(t, errs, "%s lists its errors", name)
				var listed []int64
				for _, e := range errs {
					code, _ := e.(map[string]any)["code"].(json.Number).Int64()
					require.True(t, codes[code], "%s: code %d is not in server.capabilities' error_codes", name, code)
					listed = append(listed, code)
				}
				require.Contains(t, listed, int64(CodeInvalidParams), "%s: every method refuses params it does not take", name)
			}
			// The document is built once and answered as built.
			again, rpcErr := c.call("rpc.discover", nil)
			require.Nil(t, rpcErr)
			first, _ := json.Marshal(doc)
			second, _ := json.Marshal(decodeJSON(t, again))
			require.JSONEq(t, string(first), string(second))
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDiscoverParamsCoverStructs: every member decodeParams accepts, at
// every depth, is in the method's params schema, required exactly when
// decodeParams requires it, and nothing else is (a params object refuses
// unknown members). The walk uses the decoder's own view of the structs
// (fieldsOf, structOf), not the schema generator's.
func TestDiscoverParamsCoverStructs(t *testing.T) {
	srv := NewServer(Options{Plugins: &plugins.Registry{}})
	defer srv.Close()
	doc := srv.openRPC()
	components := map[string]any{}
	raw, err := json.Marshal(doc.Components.Schemas)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &components))
	for _, m := range doc.Methods {
		entry := srv.methods[m.Name]
		require.NotEmpty(t, entry.summary, m.Name)
		require.True(t, entry.result != nil, "%s: the table names its result type", m.Name) // a typed nil pointer counts
		if entry.params == nil {
			require.Empty(t, m.Params, m.Name)
			continue
		}
		// The params as one object schema, as a nested struct is one.
		obj := map[string]any{"type": "object", "properties": map[string]any{}, "additionalProperties": false}
		var required []any
		for _, p := range m.Params {
			var s map[string]any
			b, err := json.Marshal(p.Schema)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &s))
			obj["properties"].(map[string]any)[p.Name] = s
			if p.Required {
				required = append(required, p.Name)
			}
		}
		obj["required"] = required
		coverStruct(t, reflect.TypeOf(entry.params), obj, components, m.Name)
	}
}

// coverStruct checks that object schema s describes exactly the members
// decodeParams takes into struct t.
func coverStruct(t *testing.T, st reflect.Type, s map[string]any, components map[string]any, where string) {
	t.Helper()
	if ref, ok := s["$ref"].(string); ok {
		s = components[strings.TrimPrefix(ref, schemaRefPrefix)].(map[string]any)
	}
	require.Equal(t, false, s["additionalProperties"], "%s: unknown members are refused", where)
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, name := range r {
			required[name.(string)] = true
		}
	}
	decoded := map[string]bool{}
	for _, f := range fieldsOf(st) {
		at := where + "." + f.name
		decoded[f.name] = true
		require.Contains(t, props, f.name, "%s is decoded but not described", at)
		require.Equal(t, f.required, required[f.name], "%s: required", at)
		if nested, ok := structOf(f.typ); ok {
			coverStruct(t, nested, props[f.name].(map[string]any), components, at)
		}
	}
	for name := range props {
		require.True(t, decoded[name], "%s.%s is described but not decoded", where, name)
	}
}

// TestDiscoverParamsAreDecoded: the params rpc.discover names for each
// method are the members its handler's decoder allows, over a real
// connection: an unknown member is refused with the list of the allowed
// ones. This catches a table entry naming another struct than the one the
// handler decodes.
func TestDiscoverParamsAreDecoded(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{Plugins: newPlugins(t), AllowPluginLoad: true})), NDJSON)
	_, methods, _ := discoverDoc(t, c)
	allowedRe := regexp.MustCompile(`not_a_param: unknown field \((?:allowed: (.*)|this method takes no params)\)`)
	for name, m := range methods {
		e := c.callErr(name, map[string]any{"not_a_param": 1})
		require.Equal(t, int64(CodeInvalidParams), e.Code, "%s: %s", name, e.Message)
		match := allowedRe.FindStringSubmatch(e.Message)
		require.NotNil(t, match, "%s: %s", name, e.Message)
		var allowed []string
		if match[1] != "" {
			allowed = strings.Split(match[1], ", ")
		}
		var described []string
		for _, p := range m["params"].([]any) {
			described = append(described, p.(map[string]any)["name"].(string))
		}
		require.Equal(t, allowed, described, name)
	}
}

// TestDiscoverRawMembers: every raw member rawMembers describes is a
// json.RawMessage member of its struct, so none is described under a name
// it no longer has.
func TestDiscoverRawMembers(t *testing.T) {
	for rm := range rawMembers {
		found := false
		for _, f := range fields(rm.in) {
			if f.name == rm.name {
				require.Equal(t, rawMessageType, f.typ, "%v.%s", rm.in, rm.name)
				found = true
			}
		}
		require.True(t, found, "%v has no member %q", rm.in, rm.name)
	}
}

// TestDiscoverEnumsMatchRoot: the action and matcher type names rpc.discover
// lists are exactly the constants the root package declares for them.
func TestDiscoverEnumsMatchRoot(t *testing.T) {
	require.ElementsMatch(t, constsOfType(t, "../action.go", "ActionType"), names(actionTypeNames))
	require.ElementsMatch(t, constsOfType(t, "../matcher.go", "MatcherType"), names(matcherTypeNames))
}

// TestErrorCodesListEveryCode: server.capabilities' error_codes has every
// code wire.go declares.
func TestErrorCodesListEveryCode(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	var caps Capabilities
	c.do("server.capabilities", nil, &caps)
	listed := map[int64]bool{}
	for _, code := range caps.ErrorCodes {
		listed[code] = true
	}
	for _, v := range constValues(t, "wire.go", "Code") {
		require.True(t, listed[v], "code %d is not in error_codes %v", v, caps.ErrorCodes)
	}
	require.Equal(t, int64(CodeIntentRefused), caps.ErrorCodes["intent_refused"])
	require.Equal(t, int64(CodeSessionClosed), caps.ErrorCodes["process_exited"])
}

// TestMethodNotFoundSaysWhereToLook: -32601 names the method and where the
// methods are listed.
func TestMethodNotFoundSaysWhereToLook(t *testing.T) {
	c := dialUnix(t, serveUnix(t, newServer(t, Options{})), NDJSON)
	e := c.callErr("foo.bar", nil)
	require.Equal(t, int64(CodeMethodNotFound), e.Code)
	require.Equal(t, `method not found: "foo.bar" (rpc.discover lists the methods; see docs/protocol.md)`, e.Message)
	// Without a plugin registry adapter.* is not a method at all.
	e = c.callErr("adapter.list", nil)
	require.Equal(t, int64(CodeMethodNotFound), e.Code)
}

// eachConst calls fn for every constant of file that has a value of its
// own, with its name, its declared type (nil when none) and that value.
func eachConst(t *testing.T, file string, fn func(name *ast.Ident, typ, value ast.Expr)) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if i < len(vs.Values) {
					fn(id, vs.Type, vs.Values[i])
				}
			}
		}
	}
}

// constsOfType returns the string values of the constants of type typ
// declared in file.
func constsOfType(t *testing.T, file, typ string) []string {
	t.Helper()
	var out []string
	eachConst(t, file, func(_ *ast.Ident, ty, value ast.Expr) {
		if id, ok := ty.(*ast.Ident); ok && id.Name == typ {
			lit := value.(*ast.BasicLit)
			out = append(out, constant.StringVal(constant.MakeFromLiteral(lit.Value, lit.Kind, 0)))
		}
	})
	require.NotEmpty(t, out, "no constants of type %s in %s", typ, file)
	return out
}

// constValues returns the integer values of the constants whose names
// begin with prefix declared in file.
func constValues(t *testing.T, file, prefix string) []int64 {
	t.Helper()
	var out []int64
	eachConst(t, file, func(name *ast.Ident, _, value ast.Expr) {
		if !strings.HasPrefix(name.Name, prefix) {
			return
		}
		neg := false
		if u, ok := value.(*ast.UnaryExpr); ok && u.Op == token.SUB {
			neg, value = true, u.X
		}
		lit := value.(*ast.BasicLit)
		v, ok := constant.Int64Val(constant.MakeFromLiteral(lit.Value, lit.Kind, 0))
		require.True(t, ok)
		if neg {
			v = -v
		}
		out = append(out, v)
	})
	require.NotEmpty(t, out, "no %s* constants in %s", prefix, file)
	return out
}
