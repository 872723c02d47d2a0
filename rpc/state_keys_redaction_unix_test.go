//go:build unix

package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metaPluginLua's classifier reports, in its state's metadata, the rows it
// saw as the keys of a table (with a count), and the same rows as a list.
const metaPluginLua = `local M = {}
function M.classify(ctx)
  local seen, rows = {}, {}
  for line in ctx.screen:gmatch("[^\n]+") do
    seen[line] = (seen[line] or 0) + 1
    rows[#rows + 1] = line
  end
  return { state = "idle", confidence = 1, metadata = { seen = seen, rows = rows } }
end
function M.wait_turn_matcher(params)
  return ptywright.matcher.contains_text(params.text or "end-mark")
end
return M
`

// TestStateMetadataKeysRedacted: a state's metadata has the member names
// of its maps redacted as well as its strings (redact.go redactValue): a
// plugin keying a table by screen row does not return the secret on screen
// through adapter.state or adapter.wait.
func TestStateMetadataKeysRedacted(t *testing.T) {
	c := luaAdapterServer(t, "metaplugin", "", metaPluginLua, nil)

	secret := "sk-ant-api03-" + redactionBody[:40] + "AA" // fits one 80-column row
	a := c.startAdapter(map[string]any{
		"plugin":  "metaplugin",
		"program": "/bin/sh",
		"args":    []string{"-c", "printf 'key: " + secret + "\\nend-mark\\n'; sleep 30"},
	})
	var w struct {
		State json.RawMessage `json:"state"`
	}
	c.do("adapter.wait", map[string]any{"adapter": a.Adapter, "timeout_ms": patience.Milliseconds()}, &w)
	require.Contains(t, string(w.State), `"rows":["key: [REDACTED]","end-mark"]`, "the list of rows is redacted")
	assert.NotContains(t, string(w.State), secret[:20], "adapter.wait's state carries the secret as a metadata key: %s", w.State)

	var st struct {
		State json.RawMessage `json:"state"`
	}
	c.do("adapter.state", map[string]any{"adapter": a.Adapter}, &st)
	assert.NotContains(t, string(st.State), secret[:20], "adapter.state carries the secret as a metadata key: %s", st.State)
}
