//go:build unix

package rpc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSessionControl: while a person has the terminal of an adapter's
// session (session.control take), the adapter's intents and other
// connections' input are refused with -32006 saying so, reads keep
// working, and the holder's own input reaches the session; release, and
// the end of the holder's connection, give it back.
func TestSessionControl(t *testing.T) {
	path := serveUnix(t, newServer(t, Options{Plugins: newPlugins(t, echoManifest)}))
	agent := dialUnix(t, path, NDJSON)
	person := dialUnix(t, path, NDJSON)
	a := agent.startAdapter(map[string]any{"plugin": "echo"})
	send := map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "from agent"}}

	var res controlResult
	person.do("session.control", map[string]any{"session": a.Session, "action": "take"}, &res)
	require.Equal(t, controlResult{Session: a.Session, Control: true, Adapter: a.Adapter}, res)
	person.do("session.control", map[string]any{"session": a.Session, "action": "take"}, &res) // Again: still had.
	requireError(t, agent.callErr("session.control", map[string]any{"session": a.Session, "action": "take"}), CodeIntentRefused, "another person has the terminal")
	requireError(t, agent.callErr("adapter.send", send), CodeIntentRefused, "a person has the terminal of session "+a.Session)
	requireError(t, agent.callErr("adapter.turn", map[string]any{"adapter": a.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "x"}}}),
		CodeIntentRefused, "adapter.turn is refused")
	requireError(t, agent.callErr("session.input", input(a.Session, "x")), CodeIntentRefused, "a person has the terminal")
	for method, params := range map[string]map[string]any{
		"session.resize": {"session": a.Session, "rows": 10, "cols": 40},
		"session.mouse":  {"session": a.Session, "kind": "click", "row": 0, "col": 0},
		"session.kill":   {"session": a.Session},
	} {
		requireError(t, agent.callErr(method, params), CodeIntentRefused, method+" is refused")
	}
	agent.do("adapter.state", map[string]any{"adapter": a.Adapter}, nil)
	var list sessionListResult
	agent.do("session.list", map[string]any{"details": true}, &list)
	require.True(t, list.Details[0].Control)
	require.NotEmpty(t, list.Details[0].Program)

	// The person types into the adapter's session.
	person.do("session.input", input(a.Session, "typed by hand\r"), nil)
	agent.wait(a.Session, containsText("typed by hand"))

	person.do("session.control", map[string]any{"session": a.Session, "action": "release"}, &res)
	require.False(t, res.Control)
	agent.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "after release"}}, nil)
	requireError(t, agent.callErr("session.input", input(a.Session, "x")), CodeInvalidParams, "belongs to adapter")

	// Taken again, then the person's connection ends: released.
	person.do("session.control", map[string]any{"session": a.Session, "action": "take"}, &res)
	requireError(t, agent.callErr("adapter.send", send), CodeIntentRefused, "a person has the terminal")
	_ = person.rwc.Close()
	deadline := time.Now().Add(patience)
	for {
		list = sessionListResult{}
		agent.do("session.list", map[string]any{"details": true}, &list)
		if !list.Details[0].Control {
			break
		}
		require.True(t, time.Now().Before(deadline), "control outlived the connection that had it")
		time.Sleep(5 * time.Millisecond) // The server notices the closed connection on its own.
	}
	agent.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "after the person left"}}, nil)
	requireError(t, agent.callErr("session.control", map[string]any{"session": a.Session, "action": "steal"}), CodeInvalidParams, "action")
}
