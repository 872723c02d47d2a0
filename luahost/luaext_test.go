package luahost_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/plugins"
)

// startEcho starts the echo plugin's default target under an
// ExtensionHandle whose lua matchers go to plugins.
func startEcho(t *testing.T, plugins *plugins.Registry) *ptywright.ExtensionHandle {
	t.Helper()
	m, err := plugins.Manifest("echo")
	require.NoError(t, err)
	ext, err := plugins.NewExtension("echo")
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: m.DefaultTarget.Program, Args: m.DefaultTarget.Args})
	if err != nil {
		require.NoError(t, ext.Close())
		t.Fatal(err)
	}
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{CompletedTurnStableMs: 100, Predicates: plugins})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	return h
}

func TestEchoPluginEndToEnd(t *testing.T) {
	tuitest.NoLeak(t)
	plugins := tuitest.EchoPlugins(t, plugins.Options{})
	h := startEcho(t, plugins)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "idle", st.State)
	require.Equal(t, "nothing sent yet", st.Evidence)
	require.Nil(t, st.LastIntent)

	sent, err := h.Send(ctx, "send_text", json.RawMessage(`{"text":"hello plugin"}`))
	require.NoError(t, err)
	require.Equal(t, "sent", *sent.State.LastIntent)

	st, res, err := h.Wait(ctx, "", nil) // wait_turn_matcher
	require.NoError(t, err)
	require.Equal(t, ptywright.MatchAll, res.Outcome.Kind)
	require.Equal(t, "echoed", st.State)
	require.Equal(t, `"hello plugin" typed and echoed (2 lines)`, st.Evidence)
	require.Equal(t, map[string]any{"text": "hello plugin", "lines": int64(2)}, st.Metadata)
	require.Equal(t, "sent", *st.LastIntent)

	// The lua matcher inside wait_echo_matcher is decided by the
	// registry's own instance of the plugin.
	_, err = h.Send(ctx, "send_text", json.RawMessage(`{"text":"second line"}`))
	require.NoError(t, err)
	st, res, err = h.Wait(ctx, "wait_echo_matcher", json.RawMessage(`{"text":"second line"}`))
	require.NoError(t, err)
	require.Equal(t, ptywright.MatchLua, res.Outcome.Kind)
	require.Equal(t, "echo", res.Outcome.Plugin)
	require.Equal(t, "has_text", res.Outcome.Predicate)
	require.Equal(t, "second line", *res.Outcome.Capture)
	evidence, ok := res.Outcome.Evidence.(map[string]any)
	require.True(t, ok, "evidence is the predicate's table: %#v", res.Outcome.Evidence)
	require.Equal(t, int64(2), evidence["lines"])
	require.Equal(t, "echoed", st.State)

	// Plugin errors reach the caller typed, with the plugin's message.
	_, err = h.Send(ctx, "send_text", json.RawMessage(`{"text":""}`))
	require.ErrorIs(t, err, luahost.ErrRuntime)
	require.ErrorContains(t, err, "send_text: params.text must be a non-empty string")
	_, err = h.Send(ctx, "fly", nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	require.ErrorContains(t, err, "(intents: has_text, interrupt, send_text)")

	sent, err = h.Send(ctx, "interrupt", nil)
	require.NoError(t, err)
	require.Equal(t, "interrupted", *sent.State.LastIntent)
	select {
	case <-h.Session().Exited():
	case <-ctx.Done():
		t.Fatal("Ctrl-C did not end cat")
	}
}

func TestEchoPluginDescribe(t *testing.T) {
	plugins := tuitest.EchoPlugins(t, plugins.Options{})
	d, err := plugins.Describe(context.Background(), "echo")
	require.NoError(t, err)
	require.Equal(t, "echo", d.Plugin)
	require.Equal(t, "echo", d.Manifest.Name)
	names := func(es []luahost.DescribeEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	require.Equal(t, []string{"send_text", "interrupt"}, names(d.Intents))
	require.Equal(t, []string{"wait_turn_matcher", "wait_echo_matcher"}, names(d.WaitMatchers))
	require.Equal(t, []string{"idle", "echoed"}, names(d.States))
	require.Equal(t, "type a line and press Enter", d.Intents[0]["description"])

	// Extra top-level fields are kept, and the wire form has them.
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(raw, &wire))
	require.Equal(t, []any{"has_text"}, wire["predicates"])
	require.Equal(t, "echo", wire["plugin"])
	require.Contains(t, wire, "manifest")
}

func TestDescribeFallbackIntrospects(t *testing.T) {
	ext := luaPlugin(t, `local M = {}
function M.classify(ctx) return {state = "s"} end
function M.send_prompt(p) return {} end
function M.approve(p) return {} end
function M.wait_turn_matcher(p) return ptywright.matcher.process_exited() end
function M.wait_idle_matcher(p) return ptywright.matcher.screen_stable(10) end
M.version = "1"
return M`, nil, tuitest.TestLimits)
	d, err := ext.Describe(context.Background())
	require.NoError(t, err)
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	var wire map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &wire))
	require.JSONEq(t, `[{"name":"approve"},{"name":"send_prompt"}]`, string(wire["intents"]))
	require.JSONEq(t, `[{"name":"wait_idle_matcher"},{"name":"wait_turn_matcher"}]`, string(wire["wait_matchers"]))
	require.JSONEq(t, `[]`, string(wire["states"]))
	require.JSONEq(t, `"probe"`, string(wire["plugin"]))
}

func TestDescribeValidatesThePluginsCatalogue(t *testing.T) {
	tests := []struct {
		ret, want string
	}{
		{`{intents = {"a", {name = "b", params = {x = "string"}}}}`, ""},
		{`{intents = {{description = "no name"}}}`, "describe(): intents[1] needs a non-empty string name"},
		{`{states = "ready"}`, "describe(): states must be a list"},
		{`"catalogue"`, "describe() must return a table with string keys"},
	}
	for _, tt := range tests {
		t.Run(tt.ret, func(t *testing.T) {
			ext := luaPlugin(t, "local M = {} function M.describe() return "+tt.ret+" end return M", nil, tuitest.TestLimits)
			d, err := ext.Describe(context.Background())
			if tt.want != "" {
				require.ErrorIs(t, err, luahost.ErrRuntime)
				require.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, []luahost.DescribeEntry{{"name": "a"}, {"name": "b", "params": map[string]any{"x": "string"}}}, d.Intents)
			require.Equal(t, []luahost.DescribeEntry{}, d.States)
		})
	}
}
