//go:build unix

package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/contract"
)

const explainDemo = `local M = {}
function M.classify(ctx)
  local r = {state = "idle", evidence = "prompt shown; key sk-abcdefghijklmnop1234"}
  if ctx.explain then
    r.rule = "demo.prompt"
    r.region = {first_row = 1, last_row = 1}
    r.considered = {{state = "working", rule = "demo.spinner", reason = "no spinner"}}
  end
  return r
end
function M.wait_turn_matcher() return ptywright.matcher.contains_text("never shown") end
return M`

func writeExplainDemo(t *testing.T, permissions string) string {
	dir := t.TempDir()
	m := "name = \"demo\"\nkind = \"adapter\"\nversion = \"1\"\nruntime = \"lua\"\nentrypoint = \"main.lua\"\npermissions = [" + permissions + "]\n" +
		"[default_target]\nprogram = \"/bin/sh\"\nargs = [\"-c\", \"printf ready; sleep 600\"]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifest.toml"), []byte(m), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.lua"), []byte(explainDemo), 0o600))
	return filepath.Join(dir, "manifest.toml")
}

func TestAdapterExplain(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, writeExplainDemo(t, `"session.spawn", "session.kill", "screen.read", "matcher.wait"`))})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	started := c.startAdapter(map[string]any{"plugin": "demo"})
	// The program's whole output first, so the explanation below and the
	// wait's last classification read the same, final screen.
	c.do("session.wait", map[string]any{"session": started.Session, "matcher": map[string]any{"type": "contains_text", "value": "ready"}}, nil)

	var res explainResult
	c.do("adapter.explain", map[string]any{"adapter": "e1"}, &res)
	require.Equal(t, "e1", res.Adapter)
	require.Equal(t, "demo", res.Plugin)
	x := res.Explanation
	require.Equal(t, "idle", x.State)
	require.Equal(t, "demo.prompt", x.Rule)
	require.Equal(t, &contract.RowRegion{FirstRow: 1, LastRow: 1}, x.Region)
	require.Equal(t, []contract.ConsideredState{{State: "working", Rule: "demo.spinner", Reason: "no spinner"}}, x.Considered)
	require.Equal(t, "prompt shown; key [REDACTED]", x.Evidence, "redacted by default")

	c.do("adapter.explain", map[string]any{"adapter": "e1", "redact": false}, &res)
	require.Contains(t, res.Explanation.Evidence, "sk-abcdefghijklmnop1234", "redact: false reads raw, as adapter.snapshot")

	// A wait that times out carries the explanation beside the last screen.
	e := c.callErr("adapter.wait", map[string]any{"adapter": "e1", "timeout_ms": 100})
	requireError(t, e, CodeTimeout, "timed out")
	data := errData(t, e)
	require.Contains(t, data, "snapshot")
	ex, ok := data["explanation"].(map[string]any)
	require.True(t, ok, "data: %v", data)
	require.Equal(t, "demo.prompt", ex["rule"])
	require.Equal(t, "prompt shown; key [REDACTED]", ex["evidence"])
	require.Equal(t, float64(x.Sequence), ex["sequence"], "the last classification's, not a new one")

	// A held classification, by its sequence: at once, redacted.
	c.do("adapter.explain", map[string]any{"adapter": "e1", "sequence": x.Sequence}, &res)
	require.Equal(t, x.Sequence, res.Explanation.Sequence)
	require.Equal(t, "demo.prompt", res.Explanation.Rule)
	require.Equal(t, "prompt shown; key [REDACTED]", res.Explanation.Evidence)
	// One not held: -32602 naming the oldest held sequence, with data.
	e = c.callErr("adapter.explain", map[string]any{"adapter": "e1", "sequence": x.Sequence + 1000})
	requireError(t, e, CodeInvalidParams, fmt.Sprintf("classification at sequence %d is not held", x.Sequence+1000))
	data = errData(t, e)
	require.Equal(t, float64(x.Sequence+1000), data["sequence"])
	require.Equal(t, float64(8), data["capacity"], "the ring holds 8")
	require.Positive(t, data["held"])
	requireError(t, c.callErr("adapter.explain", map[string]any{"adapter": "e1", "sequence": -1}), CodeInvalidParams, "sequence")
}

func TestAdapterExplainNeedsScreenRead(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, writeExplainDemo(t, `"session.spawn", "session.kill"`))})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.startAdapter(map[string]any{"plugin": "demo"})
	requireError(t, c.callErr("adapter.explain", map[string]any{"adapter": "e1"}), CodePermissionDenied, "adapter.explain requires the screen.read permission")
}
