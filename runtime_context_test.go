package ptywright_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

// contextLua reports the session it sees: classify in its evidence, the
// intent in its last_intent, the hook as its Ok value.
const contextLua = `
local M = {}
local action = ptywright.action
function M.classify(ctx)
  return { state = "ready", evidence = "session=" .. tostring(ctx.session) .. " adapter=" .. tostring(ctx.adapter) }
end
function M.send_prompt(p, c)
  return { actions = { action.text(p.prompt), action.key("enter") },
    last_intent = "by_" .. tostring(c.session) .. "_" .. tostring(c.adapter) .. "_" .. c.plugin }
end
function M.whoami()
  return Ok(ptywright.context())
end
function M.wait_turn_matcher(p)
  return ptywright.matcher.contains_text("READY>")
end
return M
`

// TestSessionReachesClassifyIntentsAndHooks: the session and adapter ids
// of HandleOptions.Scope reach classify (ctx.session), an intent (its
// second argument) and a hook (ptywright.context()).
func TestSessionReachesClassifyIntentsAndHooks(t *testing.T) {
	tuitest.NoLeak(t)
	m := manifest.Manifest{Name: "repl", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(contextLua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", lifecycleRepl}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Scope: events.Scope{Session: "s7", Adapter: "e4"}})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("READY>"))
	ctx := context.Background()

	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "session=s7 adapter=e4", st.Evidence)

	sent, err := h.Send(ctx, "send_prompt", json.RawMessage(`{"prompt":"hi"}`))
	require.NoError(t, err)
	require.NotNil(t, sent.State.LastIntent)
	require.Equal(t, "by_s7_e4_repl", *sent.State.LastIntent)

	res, err := ext.CallHook(ctx, "whoami", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.Nil(t, res.Err)
	require.JSONEq(t, `{"plugin":"repl","session":"s7","adapter":"e4"}`, string(res.Ok))
}

// TestContextWithoutSession: an instance that serves no session (the
// registry's hook instance) reports only its plugin; classify outside a
// handle sees no session.
func TestContextWithoutSession(t *testing.T) {
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, err = p.Load(tuitest.WritePlugin(t, "ctxp", "", contextLua))
	require.NoError(t, err)
	res, err := p.Call(context.Background(), "ctxp", "whoami", nil, luahost.HookOptions{})
	require.NoError(t, err)
	require.JSONEq(t, `{"plugin":"ctxp"}`, string(res.Ok))

	ext, err := p.NewExtension("ctxp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ext.Close() })
	st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "x"})
	require.NoError(t, err)
	require.Equal(t, "session=nil adapter=nil", st.Evidence)
}

// TestReservedIntentNamesRejectedAtLoad: a manifest declaring a host
// export as an intent fails when the plugin is loaded.
func TestReservedIntentNamesRejectedAtLoad(t *testing.T) {
	p, err := plugins.New(plugins.Options{Limits: tuitest.TestLimits})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	for _, name := range []string{"classify", "describe", "project", "close", "wait_turn_matcher"} {
		_, err = p.Load(tuitest.WritePlugin(t, "res", `intents = ["send_prompt", "`+name+`"]`+"\n", contextLua))
		require.ErrorIs(t, err, manifest.ErrInvalid, name)
		require.ErrorContains(t, err, `intent name "`+name+`" is reserved`)
	}
	_, err = p.Load(tuitest.WritePlugin(t, "res", `intents = ["send_prompt"]`+"\n", contextLua))
	require.NoError(t, err)
}
