package luahost_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
)

// TestLuaInvalidParams: ptywright.invalid_params raises an error the host
// classifies as ErrInvalidParams with the plugin's message, also when the
// plugin caught it with pcall and raised it again; tostring of it is the
// message; a plain error() stays a plugin failure only, and a table that
// merely looks like it is not mistaken for it.
func TestLuaInvalidParams(t *testing.T) {
	src := `local M = {}
function M.direct(p) ptywright.invalid_params("direct: params.prompt must be a non-empty string") end
function M.rethrown(p)
  local ok, e = pcall(ptywright.invalid_params, "rethrown: bad")
  if ok or tostring(e) ~= "rethrown: bad" then error("caught value is not the message: " .. tostring(e)) end
  error(e)
end
function M.plain(p) error("plain failure", 0) end
function M.lookalike(p) error({message = "not ours"}) end
return M
`
	ext := luaPlugin(t, src, nil, tuitest.TestLimits)
	ctx := context.Background()
	for _, tt := range []struct {
		intent  string
		invalid bool
		msg     string
	}{
		{"direct", true, "direct: params.prompt must be a non-empty string"},
		{"rethrown", true, "rethrown: bad"},
		{"plain", false, "plain failure"},
		{"lookalike", false, "not ours"},
	} {
		t.Run(tt.intent, func(t *testing.T) {
			_, err := ext.Plan(ctx, tt.intent, json.RawMessage(`{}`))
			require.Error(t, err)
			require.ErrorIs(t, err, luahost.ErrRuntime)
			require.Equal(t, tt.invalid, errors.Is(err, ptywright.ErrInvalidParams), "%v", err)
			var pe *luahost.Error
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Message, tt.msg)
			if tt.invalid {
				require.Equal(t, tt.msg, pe.Message)
			}
		})
	}
	// The state is still usable after each.
	_, err := ext.Plan(ctx, "direct", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
}
