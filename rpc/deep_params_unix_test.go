//go:build unix

package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deepAny is an any-matcher nested depth levels deep around one
// contains_text (depth 0 is the leaf alone): about 40 bytes a level.
func deepAny(depth int, text string) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"any","value":[`, depth) +
		`{"type":"contains_text","value":"` + text + `"}` + strings.Repeat(`]}`, depth))
}

// TestDeepMatcherIsRefused: any, all and none nest at most 32 levels (a
// leaf alone is one). Unbounded, a matcher's cost grew much faster than its
// size (each level decoded its subtree again and built a path string): a
// 40 KB frame nested 1000 deep took 3.5 s of CPU, a 16 MB frame hours. A
// tree one level too deep, or thousands, is -32602 naming where it goes
// too deep; the deepest allowed tree is evaluated.
func TestDeepMatcherIsRefused(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh("echo hi; sleep 30")
	c.wait(id, containsText("hi"))
	w := c.wait(id, deepAny(31, "hi"))
	require.True(t, w.Matched, "the deepest allowed matcher (32 levels) is evaluated")
	for _, depth := range []int{32, 300, 4000} {
		e := c.callErr("session.wait", map[string]any{"session": id, "matcher": deepAny(depth, "hi"), "timeout_ms": 10})
		assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
		assert.Contains(t, e.Message, "matcher"+strings.Repeat(".value[0]", 31)+".value: nests deeper than 32 levels", "depth %d", depth)
	}
	c.wait(id, containsText("hi")) // the session is intact
}

// TestDeepIntentParamsAreInvalidParams: adapter.send's params are the
// caller's; params nested deeper than the Lua bridge takes (100 levels)
// are -32602 naming params, not an internal error as if the server or the
// plugin had failed.
func TestDeepIntentParamsAreInvalidParams(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})
	deep := json.RawMessage(strings.Repeat(`{"a":`, 150) + "1" + strings.Repeat("}", 150))
	e := c.callErr("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "x", "deep": deep}})
	assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	assert.Contains(t, e.Message, "params: cannot convert: value: nested deeper than 100 levels", e.Message)
	e = c.callErr("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "x", "deep": deep}, "timeout_ms": 10})
	assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	assert.Contains(t, e.Message, "params: cannot convert", e.Message)
	// The adapter is intact.
	c.sendText(a.Adapter, "still-alive")
}

// TestDeepPredicateParamsAreInvalidParams: a lua matcher's params are the
// caller's too. Nested deeper than the Lua bridge takes, session.wait
// answers -32602 naming them, not an internal error as if the plugin had
// failed, and the session and the plugin stay usable.
func TestDeepPredicateParamsAreInvalidParams(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh("echo hi; sleep 30")
	c.wait(id, containsText("hi"))
	deep := json.RawMessage(strings.Repeat(`{"a":`, 150) + "1" + strings.Repeat("}", 150))
	lua := func(params any) map[string]any {
		return map[string]any{"type": "lua", "value": map[string]any{"plugin": "echo", "predicate": "has_text", "params": params}}
	}
	e := c.callErr("session.wait", map[string]any{"session": id, "matcher": lua(map[string]any{"text": "hi", "deep": deep}), "timeout_ms": 5000})
	assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	assert.Contains(t, e.Message, "lua params: cannot convert", e.Message)
	w := c.wait(id, lua(map[string]any{"text": "hi"}))
	require.True(t, w.Matched, "the same predicate with shallow params still decides")
}
