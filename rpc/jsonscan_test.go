package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// jsonPieces are fragments that random frames are built from: valid JSON,
// near misses of it, and the bytes the scanner decides on.
var jsonPieces = []string{
	`{`, `}`, `[`, `]`, `,`, `:`, ` `, "\t", "\n", "\r", "\v", `"`, `\`,
	`"jsonrpc"`, `"2.0"`, `"2.00"`, `"\u0032.0"`, `"id"`, `"method"`, `"params"`, `"meth\u006fd"`, `"extra"`,
	`"session.list"`, `""`, `"a\"b"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\u12"`, `"\x"`, "\"\x01\"", "\"\xff\"", `"é"`,
	`0`, `-0`, `1`, `-12.5e+3`, `1E9`, `01`, `1.`, `.5`, `-`, `1e`, `2.0e-`, `123456789012345678901234567890`,
	`true`, `false`, `null`, `tru`, `nul`, `True`, `nan`,
	`{"session":"s1"}`, `[1,2,{"a":[]}]`, `{"a":{"b":{"c":[null,true,false]}}}`, `{}`, `[]`, `{,}`, `[,]`, `{"a"}`, `{"a":}`, `[1,]`, `{"a":1,}`,
}

// randomJSON returns frames that are often valid JSON and often requests.
func randomJSON(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		// A request, from well-formed parts, maybe reordered or doubled.
		parts := []string{`"jsonrpc":"2.0"`, `"method":"session.list"`}
		if rng.IntN(2) == 0 {
			parts = append(parts, `"id":`+[]string{`1`, `"x"`, `null`, `-2.5e3`, `true`, `{}`, `[]`, `"a\nb"`}[rng.IntN(8)])
		}
		if rng.IntN(2) == 0 {
			parts = append(parts, `"params":`+[]string{`{"session":"s1"}`, `[]`, `null`, `1`, `"s"`, `{"a":[{"b":null}]}`, `{ }`}[rng.IntN(7)])
		}
		for range rng.IntN(2) {
			parts = append(parts, []string{`"jsonrpc":"1.0"`, `"method":""`, `"method":"a\u0062"`, `"method":7`, `"extra":1`, `"id":2`, `"j\u0073onrpc":"2.0"`}[rng.IntN(7)])
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		sep := []string{",", ", ", " ,\n"}[rng.IntN(3)]
		s := []string{"", " ", "\r\n\t"}[rng.IntN(3)] + "{" + strings.Join(parts, sep) + "}" + []string{"", " ", "\n", "x", "}"}[rng.IntN(5)]
		if rng.IntN(4) == 0 {
			k := rng.IntN(len(s) + 1)
			s = s[:k] + jsonPieces[rng.IntN(len(jsonPieces))] + s[k:]
		}
		return s
	}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(jsonPieces[rng.IntN(len(jsonPieces))])
	}
	return b.String()
}

// scanValid is json.Valid by the scanner: one value, whitespace around it.
func scanValid(s []byte) bool {
	end := scanValue(s, skipSpace(s, 0), 0)
	return end >= 0 && skipSpace(s, end) == len(s)
}

// checkScanAgrees holds the scanner to encoding/json on s: it takes s as
// JSON exactly when json.Valid does; objectMembers, when it takes s on,
// gives the members json.Unmarshal gives; and when parseRequestFast takes
// s on, its request is the slow path's.
func checkScanAgrees(t *testing.T, s []byte) {
	t.Helper()
	require.Equal(t, json.Valid(s), scanValid(s), "%q", s)
	if members, ok := objectMembers(s); ok {
		slow, err := objectMembersSlow(s)
		require.NoError(t, err, "%q", s)
		got := map[string]string{}
		for _, m := range members {
			got[m.name] = string(m.value)
		}
		want := map[string]string{}
		for _, m := range slow {
			want[m.name] = string(m.value)
		}
		require.Equal(t, want, got, "%q", s)
		require.Len(t, members, len(got), "a name twice: %q", s)
	}
	if !utf8.Valid(s) {
		return
	}
	fast, ok := parseRequestFast(s)
	if !ok {
		return
	}
	slow, batch := parseFrameSlow(s)
	require.False(t, batch)
	require.Len(t, slow, 1)
	require.NoError(t, slow[0].err, "%q", s)
	require.Equal(t, slow[0].req.method, fast.req.method, "%q", s)
	require.Equal(t, string(slow[0].req.id), string(fast.req.id), "%q", s)
	require.Equal(t, slow[0].req.id == nil, fast.req.id == nil, "%q", s)
	require.Equal(t, string(slow[0].req.params), string(fast.req.params), "%q", s)
	require.Equal(t, slow[0].req.params == nil, fast.req.params == nil, "%q", s)
}

// TestScanMatchesEncodingJSON: on random frames built from JSON and near
// misses of it, the one-pass scanner agrees with encoding/json (see
// checkScanAgrees), and the fast path takes most requests on.
func TestScanMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	fast := 0
	for range 100000 {
		s := []byte(randomJSON(rng))
		checkScanAgrees(t, s)
		if _, ok := parseRequestFast(s); ok && utf8.Valid(s) {
			fast++
		}
	}
	require.Greater(t, fast, 5000, "the fast path is taken")
}

// TestParseFrameFast: parseFrame answers the common request from the fast
// path and everything else as before; what the fast path declines (a
// member name or method with an escape, a name twice, a version written
// otherwise, nesting past scanMaxDepth) still parses or fails as the slow
// path says.
func TestParseFrameFast(t *testing.T) {
	_, ok := parseRequestFast([]byte(`{"jsonrpc":"2.0","id":7,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"x"}}}`))
	require.True(t, ok)
	deep := strings.Repeat("[", scanMaxDepth+10) + strings.Repeat("]", scanMaxDepth+10)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","meth\u006fd":"session.list","id":1}`,
		`{"jsonrpc":"2.0","method":"session.lis\u0074","id":1}`,
		`{"jsonrpc":"2.0","method":"a","method":"session.list","id":1}`,
		`{"jsonrpc":"2\u002e0","method":"session.list","id":1}`,
		`{"jsonrpc":"2.0","method":"session.list","id":1,"params":{"x":` + deep + `}}`,
	} {
		_, ok := parseRequestFast([]byte(frame))
		require.False(t, ok, frame)
		items, batch := parseFrame([]byte(frame))
		slow, slowBatch := parseFrameSlow([]byte(frame))
		require.Equal(t, fmt.Sprint(slow), fmt.Sprint(items), frame)
		require.Equal(t, slowBatch, batch)
		require.NoError(t, items[0].err, frame)
	}
	require.True(t, json.Valid([]byte(deep)))
	require.False(t, scanValid([]byte(deep)), "deeper than scanMaxDepth: left to encoding/json")
}

// TestCheckMembersFastMatchesSlow: checkMembers answers the same with the
// members objectMembers splits out as with those of json.Unmarshal only,
// for objects with unknown, missing, null, doubled and nested members and
// names with escapes.
func TestCheckMembersFastMatchesSlow(t *testing.T) {
	type inner struct {
		A string `json:"a" rpc:"required"`
		B int    `json:"b"`
	}
	type params struct {
		Session string `json:"session" rpc:"required"`
		Inner   *inner `json:"inner"`
		N       int    `json:"n"`
	}
	typ := reflect.TypeFor[params]()
	slowOnly := func([]byte) ([]member, bool) { return nil, false }
	names := []string{`"session"`, `"inner"`, `"n"`, `"zz"`, `"aa"`, `"Session"`, `"a"`, `"b"`, `"n"`, `"zé"`}
	values := []string{`"s1"`, `null`, `1`, `{}`, `{"a":"x"}`, `{"a":null,"b":2}`, `{"c":1}`, `[]`, `{"a":"x","q":1,"p":2}`, `{"b":1,"a":"x","a":null}`}
	rng := rand.New(rand.NewPCG(13, 14))
	fast := 0
	for range 20000 {
		var parts []string
		for range rng.IntN(5) {
			parts = append(parts, names[rng.IntN(len(names))]+":"+values[rng.IntN(len(values))])
		}
		raw := json.RawMessage("{" + strings.Join(parts, ",") + "}")
		if _, ok := objectMembers(raw); ok {
			fast++
		}
		want := fmt.Sprint(checkMembersSplit(raw, typ, "", slowOnly))
		require.Equal(t, want, fmt.Sprint(checkMembers(raw, typ, "")), "%s", raw)
	}
	require.Greater(t, fast, 5000, "the fast split is taken")
}

// FuzzScan: for any bytes, the scanner agrees with encoding/json (see
// checkScanAgrees).
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.input","params":{"session":"s1","action":{"type":"text","value":"hi\n"}}}`))
	f.Add([]byte(` {"id":"a\"b","jsonrpc":"2.0","method":"m","params":null} `))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"m"}]`))
	f.Add([]byte(`{"a":-0.5e+7,"b":[true,false,null,{}],"\u0063":"\ud83d\ude00"}`))
	f.Fuzz(func(t *testing.T, s []byte) { checkScanAgrees(t, s) })
}

// BenchmarkParseRequest reads the frames of a wait and an input, as
// BenchmarkWaitLatency sends them, into their params structs: the frame
// and its params the slow way (encoding/json alone: parseFrameSlow and
// checkMembers on encoding/json's members), and as the server does.
func BenchmarkParseRequest(b *testing.B) {
	wait := []byte(`{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":"s1","timeout_ms":10000,"matcher":{"type":"screen_regex","value":"M12 T=\\d+"}}}`)
	input := []byte(`{"jsonrpc":"2.0","id":1,"method":"session.input","params":{"session":"s1","action":{"type":"text","value":"12\n"}}}`)
	slowOnly := func([]byte) ([]member, bool) { return nil, false }
	decode := func(b *testing.B, items []item, dst any, slow bool) {
		raw := items[0].req.params
		if slow {
			require.NoError(b, checkMembersSplit(raw, reflect.TypeOf(dst).Elem(), "", slowOnly))
			require.NoError(b, json.Unmarshal(raw, dst))
			return
		}
		require.NoError(b, decodeParams(raw, dst))
	}
	for _, slow := range []bool{true, false} {
		name := map[bool]string{true: "slow", false: "fast"}[slow]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				parse := parseFrame
				if slow {
					parse = parseFrameSlow
				}
				items, _ := parse(wait)
				var wp waitParams
				decode(b, items, &wp, slow)
				items, _ = parse(input)
				var ip inputParams
				decode(b, items, &ip, slow)
			}
		})
	}
}

// FuzzCheckMembersFastMatchesSlow: for the params of every method the
// fuzzed params cover (paramKinds), checkMembers gives the same answer
// with objectMembers' split as with encoding/json's members alone.
func FuzzCheckMembersFastMatchesSlow(f *testing.F) {
	for i, s := range []string{
		`{"program":"/bin/sh","args":["-lc","printf ready"],"rows":24,"cols":80,"env":{"A":"1"}}`,
		`{"session":"s1","action":{"type":"text","value":"help\n"}}`,
		`{"session":"s1","matcher":{"type":"any","value":[{"type":"contains_text","value":"ready"}]},"timeout_ms":5000}`,
		`{"session":"s1","redact":false,"redaction":{"enabled":true,"replacement":"#","extra_literals":["a"],"bogus":1}}`,
		`{"adapter":"e1","send":{"intent":"send_prompt","params":{"prompt":"hi"}},"wait":{"intent":"wait_lifecycle","timeout_ms":5000,"wait_id":"w"}}`,
		`{"session":"s1","session":null,"\u0073ession":"s2","zz":1}`,
	} {
		f.Add(uint8(i), []byte(s))
	}
	slowOnly := func([]byte) ([]member, bool) { return nil, false }
	f.Fuzz(func(t *testing.T, kind uint8, params []byte) {
		params = bytes.TrimSpace(params)
		if len(params) == 0 || params[0] != '{' {
			return // decodeParams answers these before checkMembers
		}
		typ := reflect.TypeOf(paramKinds[int(kind)%len(paramKinds)].new()).Elem()
		want := fmt.Sprint(checkMembersSplit(params, typ, "", slowOnly))
		require.Equal(t, want, fmt.Sprint(checkMembers(params, typ, "")), "%s", params)
	})
}
