package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFrame(t *testing.T) {
	type want struct {
		id     string // raw id, "" for none
		method string
		params string
		code   int64 // 0: a valid request
		msg    string
	}
	tests := []struct {
		name  string
		frame string
		batch bool
		want  []want
	}{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"session.list"}`, false, []want{{id: "1", method: "session.list"}}},
		{"string id and params", `{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}`, false, []want{{id: `"a"`, method: "m", params: `{"x":1}`}}},
		{"null id is a call", `{"jsonrpc":"2.0","id":null,"method":"m"}`, false, []want{{id: "null", method: "m"}}},
		{"notification", `{"jsonrpc":"2.0","method":"m"}`, false, []want{{method: "m"}}},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, false, []want{{id: "1", method: "m"}}},
		{"array params pass to the method", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, false, []want{{id: "1", method: "m", params: "[1]"}}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", false, []want{{code: CodeParseError, msg: "parse error: frame is not valid UTF-8"}}},
		{"not JSON", `{"jsonrpc":`, false, []want{{code: CodeParseError, msg: "parse error: frame is not valid JSON"}}},
		{"not an object", `42`, false, []want{{code: CodeInvalidRequest, msg: "invalid request: a request must be a JSON object, got a number"}}},
		{"empty batch", `[]`, false, []want{{code: CodeInvalidRequest, msg: "invalid request: empty batch"}}},
		{"missing version keeps the id", `{"id":7,"method":"m"}`, false, []want{{id: "7", code: CodeInvalidRequest, msg: `invalid request: jsonrpc: required ("2.0")`}}},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"m"}`, false, []want{{id: "7", code: CodeInvalidRequest, msg: `invalid request: jsonrpc: must be "2.0"`}}},
		{"missing method", `{"jsonrpc":"2.0","id":9}`, false, []want{{id: "9", code: CodeInvalidRequest, msg: "invalid request: method: required"}}},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":3}`, false, []want{{id: "9", code: CodeInvalidRequest, msg: "invalid request: method: must be a string, got a number"}}},
		{"empty method", `{"jsonrpc":"2.0","id":9,"method":""}`, false, []want{{id: "9", code: CodeInvalidRequest, msg: "invalid request: method: must not be empty"}}},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"m"}`, false, []want{{code: CodeInvalidRequest, msg: "invalid request: id: must be a string, a number or null, got an object"}}},
		{"scalar params", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, false, []want{{id: "1", code: CodeInvalidRequest, msg: "invalid request: params: must be an object or an array, got a string"}}},
		{"unknown member", `{"jsonrpc":"2.0","id":1,"method":"m","extra":true}`, false, []want{{id: "1", code: CodeInvalidRequest, msg: `invalid request: unknown member "extra" (allowed: jsonrpc, id, method, params)`}}},
		{"batch mixes good and bad", `[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","method":"b"}]`, true, []want{
			{id: "1", method: "a"},
			{code: CodeInvalidRequest, msg: "invalid request: a request must be a JSON object, got a number"},
			{method: "b"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, batch := parseFrame([]byte(tt.frame))
			require.Equal(t, tt.batch, batch)
			require.Len(t, items, len(tt.want))
			for i, w := range tt.want {
				it := items[i]
				require.Equal(t, w.id, string(it.req.id), "item %d id", i)
				if w.code == 0 {
					require.NoError(t, it.err)
					require.Equal(t, w.method, it.req.method)
					require.Equal(t, w.params, string(it.req.params))
					continue
				}
				require.Error(t, it.err)
				require.Equal(t, w.code, codeOf(it.err))
				require.Equal(t, w.msg, it.err.Error())
			}
		})
	}
}

func TestEncodeResponse(t *testing.T) {
	b := encodeResponse(json.RawMessage(`"x"`), map[string]string{"a": "<b>"}, nil)
	require.Equal(t, `{"jsonrpc":"2.0","id":"x","result":{"a":"<b>"}}`, string(b))

	b = encodeResponse(nil, nil, ErrParse)
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, string(b))

	// A result that cannot be encoded becomes an internal error.
	b = encodeResponse(json.RawMessage(`1`), func() {}, nil)
	var m message
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, int64(CodeInternalError), m.Error.Code)
	require.Equal(t, "1", string(m.ID))
}

// TestAppendMarshal: appendMarshal appends to dst what marshal gives, and
// leaves dst as it was when the value does not encode.
func TestAppendMarshal(t *testing.T) {
	for _, v := range []any{
		exitedParams{Session: "s<1>", Sequence: 3},
		lifecycleParams{Adapter: "a\u2028", Session: "s1", Lifecycle: json.RawMessage(`{"state":"idle"}`)},
		map[string]any{"text": "\x1b[1m&\n"}, nil, 12,
	} {
		want, err := marshal(v)
		require.NoError(t, err)
		got, err := appendMarshal([]byte("head"), v)
		require.NoError(t, err)
		require.Equal(t, "head"+string(want), string(got))
	}
	got, err := appendMarshal([]byte("head"), func() {})
	require.Error(t, err)
	require.Equal(t, "head", string(got))
}
