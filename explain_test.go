package ptywright_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/plugins"
)

// explainPlugin names its rules, and reports what it considered and the
// rows it matched only when the host asks for an explanation.
const explainPlugin = `local M = {}
M.calls = 0
function M.classify(ctx)
  local r
  if ctx.screen:find("ready", 1, true) then
    r = {state = "ready", rule = "demo.ready_line", evidence = "saw ready; token sk-abcdefghijklmnop1234"}
  else
    r = {state = "starting", rule = "demo.fallback", evidence = "nothing yet",
      assessment = {availability = "supported", business_state = "working", input_mode = "closed", ui_context = "unknown",
        parser_metadata = {provider_id = "demo", parser_preset_id = "demo-tui", parser_preset_version = "3"},
        anomalies = {{code = "unknown_version_floor_used", message = "no banner"}}}}
  end
  if ctx.explain then
    r.region = {first_row = 1, last_row = 1}
    r.considered = {{state = "error", rule = "demo.error_line", reason = "no error text (sk-abcdefghijklmnop1234)"}}
  end
  return r
end
function M.wait_turn_matcher(params) return ptywright.matcher.contains_text("never shown") end
return M`

func TestExplain(t *testing.T) {
	tuitest.NoLeak(t)
	plugins := tuitest.EchoPlugins(t, plugins.Options{})
	_, err := plugins.Load(tuitest.WritePlugin(t, "demo", "", explainPlugin))
	require.NoError(t, err)
	ext, err := plugins.NewExtension("demo")
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "read line; echo ready; read line"}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()

	x, err := h.Explain(ctx)
	require.NoError(t, err)
	require.Equal(t, "starting", x.State)
	require.Equal(t, "demo.fallback", x.Rule)
	require.Equal(t, &contract.RowRegion{FirstRow: 1, LastRow: 1}, x.Region)
	require.Equal(t, "3", x.ParserVersion)
	require.Equal(t, "demo-tui", x.Parser.ParserPresetID)
	require.Equal(t, []contract.Anomaly{{Code: "unknown_version_floor_used", Message: "no banner"}}, x.Anomalies)
	require.Len(t, x.Considered, 1)

	// A wait that times out carries the explanation beside the screen.
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, _, err = h.Wait(wctx, "", nil)
	var we *ptywright.WaitError
	require.True(t, errors.As(err, &we), "%v", err)
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.NotNil(t, we.Explanation)
	require.Equal(t, "demo.fallback", we.Explanation.Rule)
	require.Equal(t, "no error text ([REDACTED])", we.Explanation.Considered[0].Reason, "redacted like the screen")

	// The rule that fires changes with the screen; texts are redacted
	// unless raw is asked for.
	_, err = s.Perform(ctx, ptywright.Text("go\n"))
	require.NoError(t, err)
	_, err = s.Wait(ctx, ptywright.ContainsText("ready"))
	require.NoError(t, err)
	x, err = h.Explain(ctx, ptywright.ExplainRedactor(ptywright.NoRedaction()))
	require.NoError(t, err)
	require.Equal(t, "ready", x.State)
	require.Equal(t, "demo.ready_line", x.Rule)
	require.Contains(t, x.Evidence, "sk-abcdefghijklmnop1234")
	red, err := h.Explain(ctx, ptywright.ExplainLast(), ptywright.ExplainRedactor(ptywright.DefaultRedactor()))
	require.NoError(t, err)
	require.Equal(t, "saw ready; token [REDACTED]", red.Evidence)
	require.Equal(t, "no error text ([REDACTED])", red.Considered[0].Reason)
	byDefault, err := h.Explain(ctx, ptywright.ExplainLast(), ptywright.ExplainRedactor(nil))
	require.NoError(t, err)
	require.Equal(t, red, byDefault, "nil means the handle's redactor, the default policy here")
	raw, err := h.Explain(ctx, ptywright.ExplainLast(), ptywright.ExplainRedactor(ptywright.NoRedaction()))
	require.NoError(t, err)
	require.Equal(t, x, raw)

	// A plain classification does not ask for (or decode) the extras.
	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)

	require.NoError(t, h.Close())
	_, err = h.Explain(ctx)
	require.ErrorIs(t, err, ptywright.ErrSessionClosed)
}

func TestExplainRejectsMalformedFields(t *testing.T) {
	for src, want := range map[string]string{
		`return {classify = function() return {state = "x", rule = 5} end}`:                               `field "rule": want a string`,
		`return {classify = function() return {state = "x", region = {first_row = 3, last_row = 1}} end}`: `field "region"`,
		`return {classify = function() return {state = "x", considered = {{reason = 1}}} end}`:            `considered[1].reason: want a string`,
		`return {classify = function() return {state = "x", considered = "all"} end}`:                     `field "considered"`,
	} {
		ext, err := luahost.New(tuitest.SDKManifest("bad"), []byte(src), luahost.Options{Limits: tuitest.TestLimits})
		require.NoError(t, err)
		_, _, err = ext.ClassifyExplained(context.Background(), ptywright.ClassifyContext{Screen: "x"})
		require.ErrorContains(t, err, want, src)
		// Classify alone never reads them.
		st, err := ext.Classify(context.Background(), ptywright.ClassifyContext{Screen: "x"})
		require.NoError(t, err)
		require.Equal(t, "x", st.State)
		require.NoError(t, ext.Close())
	}
}
