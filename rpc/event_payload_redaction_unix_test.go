//go:build unix

package rpc

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// rowsPluginPlugin's classifier emits, on every pass, the screen's non-blank
// rows as the keys of a table (a plugin counting which lines it has seen is
// an ordinary thing to write) and as a list of values.
const rowsPluginEvents = `
[events]
emits = ["rowsplugin:rows"]
`

const rowsPluginLua = `local M = {}
function M.classify(ctx)
  local seen, list = {}, {}
  for line in ctx.screen:gmatch("[^\n]+") do
    if line:find("%S") then
      seen[line] = true
      list[#list + 1] = line
    end
  end
  ptywright.emit("rows", { seen = seen, list = list })
  return { state = "idle", confidence = 1 }
end
function M.wait_turn_matcher(params)
  return ptywright.matcher.contains_text(params.text or "end-mark")
end
return M
`

// rowsPluginEvent starts the rowsplugin adapter on a program that prints
// "key: <secret>" and returns the payload of a rows event of a pass that saw
// it.
func rowsPluginEvent(t *testing.T, secret string) string {
	t.Helper()
	c := luaAdapterServer(t, "rowsplugin", rowsPluginEvents, rowsPluginLua, nil)
	c.do("server.set_notifications", map[string]any{"enabled": true, "events": true}, nil)
	started := c.startAdapter(map[string]any{
		"plugin":  "rowsplugin",
		"program": "/bin/sh",
		"args":    []string{"-c", "printf 'key: " + secret + "\\nend-mark\\n'; sleep 30"},
	})
	c.do("adapter.wait", map[string]any{"adapter": started.Adapter, "timeout_ms": patience.Milliseconds()}, nil)
	ev := c.nextEvent(func(ev eventParams) bool {
		var p struct{ List []string }
		if ev.Event != "rowsplugin:rows" || json.Unmarshal(ev.Payload, &p) != nil {
			return false
		}
		return slices.Contains(p.List, "end-mark")
	})
	return string(ev.Payload)
}

// TestEventPayloadMemberNamesRedacted: adapter.event payloads have their
// member names redacted as well as their strings (rpc/events.go
// redactJSON): a plugin that keys a table by screen rows does not hand the
// secret on the screen to subscribed clients. The rule: a secret never
// leaves the library unredacted, whichever notification carries it.
func TestEventPayloadMemberNamesRedacted(t *testing.T) {
	secret := "sk-ant-api03-" + redactionBody[:40] + "AA" // fits one 80-column row
	payload := rowsPluginEvent(t, secret)
	var p struct {
		Seen map[string]bool
		List []string
	}
	require.NoError(t, json.Unmarshal([]byte(payload), &p))
	require.Contains(t, p.List, "key: [REDACTED]", "the value is redacted: %s", payload)
	for k := range p.Seen {
		requireNoPiece(t, k, secret)
	}
}

// TestEventPayloadWrappedSecretRedacted: a secret longer than a row is
// soft-wrapped by the terminal; a plugin quoting the rows as a list gets
// "key: sk-ant-...<first part>" and "<rest>". redactJSON reads a list of
// strings as the rows of the event's session at its width, as states are,
// so the continuation row is hidden too.
func TestEventPayloadWrappedSecretRedacted(t *testing.T) {
	secret := "sk-ant-api03-" + redactionBody + "AA" // 96 columns with its key: wraps at 80
	payload := rowsPluginEvent(t, secret)
	var p struct{ List []string }
	require.NoError(t, json.Unmarshal([]byte(payload), &p))
	for _, row := range p.List {
		requireNoPiece(t, row, secret)
	}
}
