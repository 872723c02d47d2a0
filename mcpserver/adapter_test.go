//go:build unix

package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

type adapterStarted struct {
	Adapter string                  `json:"adapter"`
	Plugin  string                  `json:"plugin"`
	Session string                  `json:"session"`
	Pid     int                     `json:"pid"`
	State   ptywright.StateSnapshot `json:"state"`
}

type stateOut struct {
	State ptywright.StateSnapshot `json:"state"`
}

type sendOut struct {
	State   ptywright.StateSnapshot `json:"state"`
	Receipt ptywright.Receipt       `json:"receipt"`
}

type turnOut struct {
	Receipt     ptywright.Receipt       `json:"receipt"`
	State       ptywright.StateSnapshot `json:"state"`
	Matched     *ptywright.MatchOutcome `json:"matched"`
	Screen      string                  `json:"screen"`
	TimedOut    bool                    `json:"timed_out"`
	Explanation *contract.Explanation   `json:"explanation"`
}

func TestPluginDescribeListsIntents(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest, noinputManifest)}, nil)
	var out struct {
		Plugins []struct {
			Plugin        string           `json:"plugin"`
			Kind          string           `json:"kind"`
			Permissions   []string         `json:"permissions"`
			DefaultTarget string           `json:"default_target"`
			Intents       []map[string]any `json:"intents"`
			WaitMatchers  []map[string]any `json:"wait_matchers"`
		} `json:"plugins"`
	}
	txt := s.ok(t, "plugin_describe", map[string]any{}, &out)
	require.Len(t, out.Plugins, 2)
	echo := out.Plugins[0]
	if echo.Plugin != "echo" {
		echo = out.Plugins[1]
	}
	require.Equal(t, "echo", echo.Plugin)
	require.Equal(t, "adapter", echo.Kind)
	require.Equal(t, "/bin/sh -c cat", echo.DefaultTarget)
	require.Contains(t, echo.Permissions, "input.write")
	require.Equal(t, "send_text", echo.Intents[0]["name"])
	require.Equal(t, "wait_turn_matcher", echo.WaitMatchers[0]["name"])
	require.Contains(t, txt, `"name":"send_text"`)
	require.Contains(t, txt, "noinput 0.1.0 (adapter")

	s.ok(t, "plugin_describe", map[string]any{"plugin": "noinput"}, &out)
	require.Len(t, out.Plugins, 1)
	s.fails(t, "plugin_describe", map[string]any{"plugin": "nope"}, "plugin: ")
}

func TestAdapterStartSendTurnClose(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest)}, nil)
	var a adapterStarted
	txt := s.ok(t, "adapter_start", map[string]any{"plugin": "echo"}, &a)
	require.Equal(t, "echo", a.Plugin)
	require.Equal(t, "idle", a.State.State)
	require.Contains(t, txt, "Started adapter "+a.Adapter)
	// Ids as JSON-RPC gives them: the first adapter is e1, on s1.
	require.Equal(t, "e1", a.Adapter)
	require.Equal(t, "s1", a.Session)

	var st stateOut
	s.ok(t, "adapter_state", map[string]any{"adapter": a.Adapter}, &st)
	require.Equal(t, "nothing sent yet", st.State.Evidence)

	var sent sendOut
	txt = s.ok(t, "adapter_send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "hello"}}, &sent)
	require.NotEqual(t, "nothing sent yet", sent.State.Evidence, "the state after the intent")
	require.Equal(t, "send_text", sent.Receipt.Intent)
	require.Equal(t, len("hello")+1, sent.Receipt.Bytes, "the text and Enter")
	require.Equal(t, 1, sent.Receipt.Attempts)
	require.Contains(t, txt, "Sent send_text to adapter "+a.Adapter+": "+string(sent.Receipt.Effect)+" (6 bytes, 1 attempt(s))")

	// Its session is readable with the session tools.
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": a.Session, "regex": `(?m)^hello\s*\nhello`}, &w)
	require.True(t, w.Matched, w.Screen)

	var turn turnOut
	txt = s.ok(t, "adapter_turn", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "again"}}, &turn)
	require.Equal(t, "echoed", turn.State.State)
	require.Equal(t, "send_text", turn.Receipt.Intent)
	require.NotNil(t, turn.Matched)
	require.Equal(t, ptywright.MatchAll, turn.Matched.Kind)
	require.Contains(t, turn.Screen, "again\nagain")
	require.Contains(t, txt, "State: echoed")
	require.Contains(t, txt, "again\nagain")

	s.ok(t, "adapter_turn", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "third"},
		"wait_intent": "wait_echo_matcher", "wait_params": map[string]any{"text": "third"}}, &turn)
	require.Equal(t, ptywright.MatchLua, turn.Matched.Kind)

	s.fails(t, "session_close", map[string]any{"session": a.Session}, "belongs to adapter "+a.Adapter+": close it with adapter_close")
	var closed struct {
		Closed bool `json:"closed"`
	}
	s.ok(t, "adapter_close", map[string]any{"adapter": a.Adapter}, &closed)
	require.True(t, closed.Closed)
	s.fails(t, "adapter_state", map[string]any{"adapter": a.Adapter}, `unknown adapter "`+a.Adapter+`" (open adapters: none)`)
	s.fails(t, "session_snapshot", map[string]any{"session": a.Session}, "unknown session")
}

func TestAdapterErrorsAreToolResults(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest, noinputManifest)}, nil)
	var echo, ro adapterStarted
	s.ok(t, "adapter_start", map[string]any{"plugin": "echo"}, &echo)
	s.ok(t, "adapter_start", map[string]any{"plugin": "noinput"}, &ro)
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"adapter_start", map[string]any{"plugin": ""}, "plugin: must not be empty"},
		{"adapter_start", map[string]any{"plugin": "nope"}, "plugin: "},
		{"adapter_start", map[string]any{"plugin": "echo", "program": "/no/such/program"}, "starting /no/such/program"},
		{"adapter_start", map[string]any{"plugin": "echo", "cwd": "/no/such/dir"}, "cwd: "},
		{"adapter_state", map[string]any{"adapter": "e99"}, `unknown adapter "e99"`},
		{"adapter_send", map[string]any{"adapter": echo.Adapter, "intent": ""}, "intent: must not be empty"},
		{"adapter_send", map[string]any{"adapter": echo.Adapter, "intent": "no_such_intent"}, "no_such_intent"},
		{"adapter_send", map[string]any{"adapter": echo.Adapter, "intent": "send_text", "params": map[string]any{"text": ""}}, "params.text must be a non-empty string"},
		{"adapter_send", map[string]any{"adapter": echo.Adapter, "intent": "send_text", "params": "text"}, "params"},
		{"adapter_send", map[string]any{"adapter": ro.Adapter, "intent": "poke"}, "adapter.send requires the input.write permission"},
		{"adapter_turn", map[string]any{"adapter": ro.Adapter, "intent": "poke"}, "adapter.turn requires the input.write permission"},
		{"adapter_turn", map[string]any{"adapter": echo.Adapter, "intent": "send_text", "params": map[string]any{"text": "x"}, "timeout_ms": -1}, "timeout_ms: must be between"},
		{"adapter_close", map[string]any{"adapter": ro.Adapter}, "adapter.close requires the session.kill permission"},
		{"adapter_close", map[string]any{"adapter": "e99"}, `unknown adapter "e99"`},
	} {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			s.fails(t, tt.tool, tt.args, tt.want)
		})
	}
	// A turn that times out says so and shows the screen.
	res := s.call(t, "adapter_turn", map[string]any{"adapter": echo.Adapter, "intent": "send_text", "params": map[string]any{"text": "late"},
		"wait_intent": "wait_echo_matcher", "wait_params": map[string]any{"text": "never-shown"}, "timeout_ms": 1000}) // long enough for the send and cat's echo on a loaded machine
	require.True(t, res.IsError)
	require.Contains(t, text(res), "timed out")
	require.Contains(t, text(res), "--- screen ---\nlate")
	// It explains the plugin's last reading of the screen, in the text and
	// in the structured content.
	require.Contains(t, text(res), "Why: the plugin last read the screen (sequence ")
	require.Contains(t, text(res), "by rule echo.")
	var late turnOut
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &late))
	require.True(t, late.TimedOut)
	require.Contains(t, late.Screen, "late")
	require.Equal(t, "send_text", late.Receipt.Intent)
	require.NotNil(t, late.Explanation, "structured content: %s", b)
	// The last classification (the lifecycle's, or the send's) is of the
	// screen before or after cat echoed "late".
	rules := map[string]string{"echo.nothing_sent": "idle", "echo.awaiting_echo": "idle", "echo.echoed": "echoed"}
	require.Equal(t, rules[late.Explanation.Rule], late.Explanation.State, "rule %q", late.Explanation.Rule)
	require.Positive(t, late.Explanation.Sequence)
	// Both adapters are intact.
	var st stateOut
	s.ok(t, "adapter_state", map[string]any{"adapter": echo.Adapter}, &st)
	s.ok(t, "adapter_state", map[string]any{"adapter": ro.Adapter}, &st)
	require.Equal(t, "idle", st.State.State)
}

func TestAdapterStateIsRedacted(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, echoManifest)}, nil)
	var a adapterStarted
	s.ok(t, "adapter_start", map[string]any{"plugin": "echo"}, &a)
	secret := "sk-" + strings.Repeat("z9y8", 6)
	var turn turnOut
	txt := s.ok(t, "adapter_turn", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": secret}}, &turn)
	require.Equal(t, "echoed", turn.State.State)
	require.Contains(t, turn.State.Evidence, "[REDACTED]")
	require.NotContains(t, txt, secret)
	require.NotContains(t, mustJSON(t, turn), secret)
	res := s.call(t, "adapter_state", map[string]any{"adapter": a.Adapter})
	require.NotContains(t, text(res), secret)
	require.NotContains(t, mustJSON(t, res.StructuredContent), secret)
}

// Receipts reach the model: an intent whose keys change nothing is
// reported ignored (and a turn does not wait on it), one the program takes
// is confirmed.
func TestAdapterReceipts(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, "testdata/plugins/picky/manifest.toml")}, nil)
	var a adapterStarted
	s.ok(t, "adapter_start", map[string]any{"plugin": "picky"}, &a)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": a.Session, "text": "menu"}, &w)

	var sent sendOut
	txt := s.ok(t, "adapter_send", map[string]any{"adapter": a.Adapter, "intent": "pick"}, &sent)
	require.Equal(t, ptywright.EffectIgnored, sent.Receipt.Effect)
	require.Equal(t, "menu", sent.State.State)
	require.Contains(t, txt, "IGNORED by the program (1 bytes, 1 attempt(s))")

	var turn turnOut
	txt = s.ok(t, "adapter_turn", map[string]any{"adapter": a.Adapter, "intent": "pick"}, &turn)
	require.Equal(t, ptywright.EffectIgnored, turn.Receipt.Effect)
	require.Nil(t, turn.Matched, "no wait ran")
	require.Contains(t, txt, "did not wait: IGNORED")
	require.Contains(t, txt, "--- screen ---\nmenu")

	txt = s.ok(t, "adapter_turn", map[string]any{"adapter": a.Adapter, "intent": "choose"}, &turn)
	require.Equal(t, ptywright.EffectConfirmed, turn.Receipt.Effect)
	require.Equal(t, "chosen", turn.State.State)
	require.NotNil(t, turn.Matched)
	require.Contains(t, turn.Screen, "chosen")
	require.Contains(t, txt, "done (confirmed")
}

// TestAdapterStartRefusesOtherKinds: a matcher plugin is not started (it
// could never report a state), and nothing is left running.
func TestAdapterStartRefusesOtherKinds(t *testing.T) {
	s := serve(t, Options{Plugins: newPlugins(t, "testdata/plugins/predicate/manifest.toml")}, nil)
	s.fails(t, "adapter_start", map[string]any{"plugin": "predicate"}, `plugin: plugin "predicate" is a matcher plugin: only adapter plugins can be started`)
}
