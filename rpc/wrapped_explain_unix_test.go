//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quoteScreenLua's classifier quotes the whole screen as its evidence, as a
// plugin explaining "what I saw" does.
const quoteScreenLua = `local M = {}
function M.classify(ctx)
  return { state = "idle", confidence = 1, evidence = ctx.screen, rule = "quote.all" }
end
function M.wait_turn_matcher(params)
  return ptywright.matcher.contains_text(params.text or "end-mark")
end
return M
`

// TestExplainHidesAWrappedSecret: a secret longer than a row is
// soft-wrapped by the terminal. adapter.state hides it on both rows, and
// so does adapter.explain, now and at a held sequence (it redacted the
// evidence knowing no width, which returned the continuation row).
func TestExplainHidesAWrappedSecret(t *testing.T) {
	c := luaAdapterServer(t, "quotescreen", "", quoteScreenLua, nil)

	secret := "sk-ant-api03-" + redactionBody + "AA" // with "key: ", 96 columns: wraps at 80
	a := c.startAdapter(map[string]any{
		"plugin":  "quotescreen",
		"program": "/bin/sh",
		"args":    []string{"-c", "printf 'key: " + secret + "\\nend-mark\\n'; sleep 30"},
	})
	var w struct {
		State stateShape `json:"state"`
	}
	c.do("adapter.wait", map[string]any{"adapter": a.Adapter, "timeout_ms": patience.Milliseconds()}, &w)
	require.Contains(t, w.State.Evidence, "end-mark", "the plugin quotes the screen")
	requireNoPiece(t, w.State.Evidence, secret) // adapter.wait's state: hidden on both rows

	var st stateResult
	c.do("adapter.state", map[string]any{"adapter": a.Adapter}, &st)
	assert.NotContains(t, st.State.Evidence, "4sD6fG8hJ0kL", "adapter.state")

	var x explainResult
	c.do("adapter.explain", map[string]any{"adapter": a.Adapter}, &x)
	require.Contains(t, x.Explanation.Evidence, "end-mark")
	assert.NotContains(t, x.Explanation.Evidence, "4sD6fG8hJ0kL", "adapter.explain returns the wrapped secret's continuation row: %q", x.Explanation.Evidence)

	var held explainResult
	c.do("adapter.explain", map[string]any{"adapter": a.Adapter, "sequence": x.Explanation.Sequence}, &held)
	assert.NotContains(t, held.Explanation.Evidence, "4sD6fG8hJ0kL", "adapter.explain of a held sequence: %q", held.Explanation.Evidence)
}
