package ptywright_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// A Lua adapter for a shell REPL that reports the shared assessment and
// projects its dialog without the prompt chrome.
const lifecycleLua = `
local M = {}
local action, matcher = ptywright.action, ptywright.matcher

local function last_line(body)
  local last = ""
  for line in string.gmatch(body, "[^\n]+") do last = line end
  return last
end

function M.classify(ctx)
  local body = ctx.body_text or ""
  local a = { availability = "supported", business_state = "working", input_mode = "closed", ui_context = "normal_prompt",
    parser_metadata = { provider_id = "repl", detected_version = string.match(body, "REPL v(%d+%.%d+)") } }
  local state = "thinking"
  if string.find(last_line(body), "^READY>") then
    a.business_state, a.input_mode, state = "idle", "freeform", "ready"
  end
  return { state = state, confidence = 0.9, evidence = last_line(body), assessment = a }
end

function M.project(ctx)
  local out = {}
  for line in string.gmatch(ctx.body_text or "", "[^\n]+") do
    if not string.find(line, "^READY>") and not string.find(line, "^REPL v") then out[#out + 1] = line end
  end
  return { dialog_text = table.concat(out, "\n"), projector_id = "repl.v1" }
end

function M.send_prompt(p)
  return { actions = { action.text(p.prompt), action.key("enter") }, last_intent = "prompt_submitted" }
end

function M.wait_turn_matcher(p)
  return matcher.all({ matcher.contains_text("READY>"), matcher.screen_stable(p.completed_turn_stable_ms) })
end

return M
`

const lifecycleRepl = `printf 'REPL v1.2\n'; while printf 'READY> '; read -r line; do echo working; sleep 0.3; echo "<<<A>>>$line<<<E>>>"; done`

func startLifecycleAdapter(t *testing.T, lua string, opts ptywright.HandleOptions) *ptywright.ExtensionHandle {
	t.Helper()
	m := manifest.Manifest{Name: "repl", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua,
		Entrypoint: "main.lua", Permissions: manifest.AllPermissions()}
	ext, err := luahost.New(m, []byte(lua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", lifecycleRepl}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, opts)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("READY>"))
	return h
}

func TestLifecycleThroughAHandle(t *testing.T) {
	tuitest.NoLeak(t)
	var mu sync.Mutex
	var seen []contract.LifecycleState
	h := startLifecycleAdapter(t, lifecycleLua, ptywright.HandleOptions{
		Lifecycle: &contract.LifecycleOptions{CompletionStability: 200 * time.Millisecond},
		OnLifecycle: func(st contract.LifecycleStatus) {
			mu.Lock()
			seen = append(seen, st.State)
			mu.Unlock()
		},
	})
	ctx := context.Background()

	st, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)
	require.Equal(t, "1.2", st.Assessment.ParserMetadata.DetectedVersion)
	require.Equal(t, contract.LifecycleWaiting, st.Lifecycle.State)
	require.True(t, st.Lifecycle.SubmitReady)

	turn, err := h.Turn(ctx, "send_prompt", json.RawMessage(`{"prompt":"forty-two"}`), contract.LifecycleWaitIntent, nil)
	require.NoError(t, err)
	st, res := turn.State, turn.Wait
	require.Equal(t, ptywright.MatchLifecycle, res.Outcome.Kind)
	require.Equal(t, "completed", res.Outcome.Text)
	require.Equal(t, contract.LifecycleCompleted, st.Lifecycle.State)
	require.Equal(t, 1, h.Lifecycle().TurnID)

	// OnLifecycle runs after the status is published (and the wait woken),
	// outside the handle's locks: its last call may still be on its way.
	var got []contract.LifecycleState
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		got = append(got[:0], seen...)
		return len(got) > 0 && got[len(got)-1] == contract.LifecycleCompleted
	}, 5*time.Second, time.Millisecond, "OnLifecycle never reported completed: %v", got)
	// The typed echo already changes the text while the prompt still looks
	// ready, so a candidate may come and be retracted before the work shows:
	// the turn must end working → candidate → completed.
	require.GreaterOrEqual(t, len(got), 3)
	require.Equal(t, []contract.LifecycleState{contract.LifecycleInProgress, contract.LifecycleCandidateComplete, contract.LifecycleCompleted}, got[len(got)-3:])

	p, err := h.Project(ctx, 0, 1)
	require.NoError(t, err)
	require.Equal(t, "repl.v1", p.Metadata.ProjectorID)
	require.NotContains(t, p.DialogText, "READY>")
	require.Equal(t, "<<<A>>>forty-two<<<E>>>", p.Tail)

	ans, err := h.Extract(ctx, ptywright.Extraction{Sentinels: []string{"<<<A>>>", "<<<E>>>"}})
	require.NoError(t, err)
	require.Equal(t, "forty-two", ans.Text)

	in, err := h.Inspect(ctx, ptywright.DefaultRedactor())
	require.NoError(t, err)
	require.Equal(t, p.DialogText, in.Projection.DialogText)
}

func TestLifecycleWaitErrors(t *testing.T) {
	h := startLifecycleAdapter(t, lifecycleLua, ptywright.HandleOptions{})
	ctx := context.Background()
	_, _, err := h.Wait(ctx, contract.LifecycleWaitIntent, nil)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams, "no lifecycle tracked")
	require.Nil(t, h.Lifecycle())

	h2 := startLifecycleAdapter(t, lifecycleLua, ptywright.HandleOptions{Lifecycle: &contract.LifecycleOptions{}})
	_, _, err = h2.Wait(ctx, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"done"}`))
	require.ErrorContains(t, err, `unknown lifecycle state "done"`)
	tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, _, err = h2.Wait(tctx, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"stalled"}`))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
}

func TestInvalidAssessmentIsAPluginError(t *testing.T) {
	bad := `local M = {}
function M.classify(ctx) return { state = "ready", assessment = { availability = "sometimes", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt" } } end
return M`
	h := startLifecycleAdapter(t, bad, ptywright.HandleOptions{})
	st, err := h.State(context.Background())
	require.NoError(t, err)
	require.Equal(t, contract.PluginErrorState, st.State)
	require.Contains(t, st.Evidence, "assessment.availability")

	unknownField := `local M = {}
function M.classify(ctx) return { state = "ready", assessment = { availability = "supported", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt", mood = "good" } } end
return M`
	// An unknown field is a newer plugin's addition, not an error: the
	// state stands and an anomaly names the dropped field.
	h = startLifecycleAdapter(t, unknownField, ptywright.HandleOptions{})
	st, err = h.State(context.Background())
	require.NoError(t, err)
	require.Equal(t, "ready", st.State)
	require.Len(t, st.Assessment.Anomalies, 1)
	require.Equal(t, contract.AnomalyUnknownAssessmentFields, st.Assessment.Anomalies[0].Code)
	require.Contains(t, st.Assessment.Anomalies[0].Message, "mood")
}
