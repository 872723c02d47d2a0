//go:build unix

package rpc

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logPluginLua's classifier logs what it saw: the rows in a nested list, a
// table keyed by row, and one row as a top-level string field.
const logPluginLua = `local M = {}
function M.classify(ctx)
  local rows, seen, key = {}, {}, ""
  for line in ctx.screen:gmatch("[^\n]+") do
    rows[#rows + 1] = line
    seen[line] = true
    if line:find("key:", 1, true) then key = line end
  end
  ptywright.log.info("classified", { key_row = key, detail = { rows = rows }, seen = seen })
  return { state = "idle", confidence = 1 }
end
function M.wait_turn_matcher(params)
  return ptywright.matcher.contains_text(params.text or "end-mark")
end
return M
`

// TestPluginLogFieldsRedacted: ptywright.log.<level>(msg, fields) redacts
// the message and every string of the fields (internal/luart/sdk.go
// luaLog), strings nested in a table and table keys included: a plugin
// that logs the rows it classified does not write the secret on screen to
// the server's log (stderr for `ptywright serve`). The redaction rule
// lists "the CLI's and plugins' log lines".
func TestPluginLogFieldsRedacted(t *testing.T) {
	logs := &logBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c := luaAdapterServer(t, "logplugin", "", logPluginLua, logger)

	secret := "sk-ant-api03-" + redactionBody[:40] + "AA" // fits one 80-column row
	a := c.startAdapter(map[string]any{
		"plugin":  "logplugin",
		"program": "/bin/sh",
		"args":    []string{"-c", "printf 'key: " + secret + "\\nend-mark\\n'; sleep 30"},
	})
	c.do("adapter.wait", map[string]any{"adapter": a.Adapter, "timeout_ms": patience.Milliseconds()}, nil)
	// The wait classified the screen with the key on it: its log line is
	// written by now.
	logs.mu.Lock()
	text := logs.b.String()
	logs.mu.Unlock()
	var line string
	for l := range strings.Lines(text) {
		if strings.Contains(l, "end-mark") {
			line = l
		}
	}
	require.NotEmpty(t, line, "the plugin logged the rows: %s", text)
	assert.Contains(t, line, `"key_row":"key: [REDACTED]"`, "a top-level field is redacted")
	assert.NotContains(t, line, secret[:20], "a plugin's log line carries the secret: %s", line)
}
