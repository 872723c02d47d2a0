//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/policyfile"
)

// TestAdapterPolicy: adapter.policy shows the rules in force for an
// adapter: its own from adapter.start, else the server's, else none; a
// policy param with a bad rule is -32602 and starts nothing.
func TestAdapterPolicy(t *testing.T) {
	serverPolicy, err := policyfile.Parse([]byte("[[rule]]\nid = \"deny-rm\"\ncommand = \"rm *\"\ndecision = \"deny\"\n"))
	require.NoError(t, err)
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest), Policy: serverPolicy})
	c := transports[0].connect(t, srv, NDJSON)

	var got policyResult
	a := c.startAdapter(map[string]any{"plugin": "echo"})
	c.do("adapter.policy", map[string]any{"adapter": a.Adapter}, &got)
	require.Equal(t, policyResult{Adapter: a.Adapter, Source: "server", Rules: []ptywright.PolicyRule{{ID: "deny-rm", Command: "rm *", Decision: "deny"}}}, got)

	own := c.startAdapter(map[string]any{"plugin": "echo", "policy": map[string]any{"rules": []any{
		map[string]any{"id": "allow-heldout", "tool": "shell", "command": "touch heldout_*", "decision": "allow"},
	}}})
	c.do("adapter.policy", map[string]any{"adapter": own.Adapter}, &got)
	require.Equal(t, "adapter.start", got.Source)
	require.Equal(t, []ptywright.PolicyRule{{ID: "allow-heldout", Tool: "shell", Command: "touch heldout_*", Decision: "allow"}}, got.Rules)

	none := c.startAdapter(map[string]any{"plugin": "echo", "policy": map[string]any{"rules": []any{}}})
	c.do("adapter.policy", map[string]any{"adapter": none.Adapter}, &got)
	require.Equal(t, "adapter.start", got.Source)
	require.Empty(t, got.Rules)

	_, e := c.call("adapter.start", map[string]any{"plugin": "echo", "policy": map[string]any{"rules": []any{
		map[string]any{"id": "x", "decision": "maybe"}}}})
	requireError(t, e, CodeInvalidParams, "decision must be allow, deny or ask")
	_, e = c.call("adapter.start", map[string]any{"plugin": "echo", "policy": map[string]any{"rulez": []any{}}})
	requireError(t, e, CodeInvalidParams, "rulez")
}
