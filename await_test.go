package ptywright_test

import (
	"context"
	"encoding/json"
	"strconv"
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

// awaitLua drives testdata/menu -startup: "choose" awaits the menu (its
// keys must never go to the start-up screen, which drops them), "hasty"
// awaits it for only 200 ms, "refused" declines, and "prompt" submits a
// turn whose expectation the menu never shows.
const awaitLua = `
local M = {}
local action, matcher = ptywright.action, ptywright.matcher
function M.classify(ctx)
  local a = { availability = "supported", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt" }
  if string.find(ctx.screen, "You chose", 1, true) then return { state = "chosen", assessment = a } end
  if string.find(ctx.screen, "Pick a fruit", 1, true) then return { state = "menu", assessment = a } end
  a.business_state = "working"
  return { state = "starting", assessment = a }
end
function M.choose(p)
  return { actions = { action.text("1") }, expect = { states = { "chosen" } }, await = { states = { "menu" } } }
end
function M.hasty(p)
  return { actions = { action.text("1") }, expect = { states = { "chosen" } }, await = { states = { "menu" }, within_ms = 200 } }
end
function M.refused(p)
  ptywright.refuse("refused: nothing to do on this screen")
end
function M.prompt(p)
  return { actions = { action.text("9") }, last_intent = "prompt_submitted",
    expect = { matcher = matcher.contains_text("never shown"), within_ms = 300 } }
end
return M`

func startAwaitMenu(t *testing.T, startupMs int, opts ptywright.HandleOptions) *ptywright.ExtensionHandle {
	t.Helper()
	m := manifest.Manifest{Name: "menu", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite, manifest.PermissionMatcherWait, manifest.PermissionScreenRead}}
	ext, err := luahost.New(m, []byte(awaitLua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: menuProgram(t), Args: []string{"-startup", strconv.Itoa(startupMs), "-deaf", "0"}})
	if err != nil {
		_ = ext.Close()
	}
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, opts)
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("Waiting for startup"))
	return h
}

// An intent sent the moment the start-up screen shows is held until the
// screen the plan awaits, then planned again and delivered there: the
// program takes it, where without the await the keys would be dropped.
func TestAwaitHoldsKeysUntilTheScreenTakesThem(t *testing.T) {
	tuitest.NoLeak(t)
	for i := range 5 {
		h := startAwaitMenu(t, 400, ptywright.HandleOptions{})
		res, err := h.Send(context.Background(), "choose", nil)
		require.NoError(t, err)
		rc := res.Receipt
		require.Equal(t, ptywright.EffectConfirmed, rc.Effect, "run %d: %+v", i, rc)
		require.Equal(t, "menu", rc.StateBefore, "run %d: the keys went to the menu", i)
		require.Equal(t, 1, rc.Bytes)
		require.Greater(t, rc.HeldMs, int64(0), "run %d: the keys were held", i)
		require.Equal(t, "chosen", res.State.State)
	}
}

// When the awaited screen does not come within the plan's window, nothing
// is written and the receipt says not_sent, naming the state it saw.
func TestAwaitNotSentWhenTheScreenNeverComes(t *testing.T) {
	tuitest.NoLeak(t)
	h := startAwaitMenu(t, 3000, ptywright.HandleOptions{})
	res, err := h.Send(context.Background(), "hasty", nil)
	require.NoError(t, err)
	rc := res.Receipt
	require.Equal(t, ptywright.EffectNotSent, rc.Effect, "%+v", rc)
	require.Zero(t, rc.Bytes)
	require.Zero(t, rc.Attempts)
	require.Contains(t, rc.Reason, "did not show menu within 200 ms")
	require.Contains(t, rc.Reason, "starting")

	// A turn does not wait on keys that were never sent.
	tr, err := h.Turn(context.Background(), "hasty", nil, "", nil)
	require.NoError(t, err)
	require.Equal(t, ptywright.EffectNotSent, tr.Receipt.Effect)
	require.Nil(t, tr.Wait)
}

// When the program exits while the keys wait, the receipt says not_sent
// at once, not at the end of the window: no screen will come.
func TestAwaitNotSentWhenTheProgramExits(t *testing.T) {
	tuitest.NoLeak(t)
	m := manifest.Manifest{Name: "menu", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite, manifest.PermissionMatcherWait, manifest.PermissionScreenRead}}
	ext, err := luahost.New(m, []byte(awaitLua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "echo Waiting for startup; sleep 0.3"}})
	if err != nil {
		_ = ext.Close()
	}
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	waitFor(t, s, ptywright.ContainsText("Waiting for startup"))
	res, err := h.Send(context.Background(), "choose", nil)
	require.NoError(t, err)
	rc := res.Receipt
	require.Equal(t, ptywright.EffectNotSent, rc.Effect, "%+v", rc)
	require.Contains(t, rc.Reason, "the program exited while the keys waited for menu")
	require.Zero(t, rc.Bytes)
	require.Less(t, rc.HeldMs, int64(5000), "not the 10 s window")
}

// ptywright.refuse is a typed error: ErrIntentRefused, not an internal
// error nor invalid params, and nothing is written.
func TestRefusedIntentIsTyped(t *testing.T) {
	tuitest.NoLeak(t)
	h := startAwaitMenu(t, 100, ptywright.HandleOptions{})
	seq := h.Session().Sequence()
	_, err := h.Send(context.Background(), "refused", nil)
	require.ErrorIs(t, err, ptywright.ErrIntentRefused)
	require.NotErrorIs(t, err, ptywright.ErrInvalidParams)
	require.ErrorContains(t, err, "refused: nothing to do on this screen")
	require.Equal(t, seq, h.Session().Sequence(), "nothing was written")
}

// A prompt the program ignores never starts, advances or completes a
// turn: neither the reply, nor any lifecycle notification, nor the
// lifecycle read after the completion window shows a turn.
func TestIgnoredPromptStartsNoTurn(t *testing.T) {
	tuitest.NoLeak(t)
	var mu sync.Mutex
	var seen []contract.LifecycleStatus
	h := startAwaitMenu(t, 100, ptywright.HandleOptions{
		Lifecycle: &contract.LifecycleOptions{CompletionStability: 100 * time.Millisecond},
		OnLifecycle: func(st contract.LifecycleStatus) {
			mu.Lock()
			seen = append(seen, st)
			mu.Unlock()
		},
	})
	waitFor(t, h.Session(), ptywright.ContainsText("Pick a fruit"))
	for range 3 {
		tr, err := h.Turn(context.Background(), "prompt", nil, "", nil)
		require.NoError(t, err)
		require.Equal(t, ptywright.EffectIgnored, tr.Receipt.Effect)
		require.Nil(t, tr.Wait)
		require.NotNil(t, tr.State.Lifecycle)
		require.Zero(t, tr.State.Lifecycle.TurnID, "the reply claims no turn")
		require.Equal(t, contract.LifecycleWaiting, tr.State.Lifecycle.State)
	}
	// Past the completion window nothing completes later either: a
	// lifecycle wait for completed runs out.
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_, _, err := h.Wait(ctx, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"completed"}`))
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	lc := h.Lifecycle()
	require.Zero(t, lc.TurnID)
	require.Equal(t, contract.LifecycleWaiting, lc.State)
	mu.Lock()
	defer mu.Unlock()
	for _, st := range seen {
		require.Zero(t, st.TurnID, "a notification claimed a turn: %+v", st)
	}
}

// catLua reads `cat` as always ready; "prompt" types a line and expects
// its echo, so the receipt comes only after the screen already shows the
// answer the turn waits for.
const catLua = `
local M = {}
local action, matcher = ptywright.action, ptywright.matcher
function M.classify(ctx)
  return { state = "ready", assessment = { availability = "supported", business_state = "idle", input_mode = "freeform", ui_context = "normal_prompt" } }
end
function M.prompt(p)
  return { actions = { action.text(p.prompt), action.key("enter") }, last_intent = "prompt_submitted",
    expect = { matcher = matcher.contains_text(p.prompt) } }
end
return M`

// A prompt whose receipt comes in after the screen already shows its
// answer completes: the confirmed turn finds its evidence in the latest
// observation and its completion deadline is kept without another screen
// change.
func TestConfirmedPromptCompletesWithoutAnotherChange(t *testing.T) {
	tuitest.NoLeak(t)
	m := manifest.Manifest{Name: "cat", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua",
		Permissions: []manifest.Permission{manifest.PermissionInputWrite, manifest.PermissionMatcherWait, manifest.PermissionScreenRead}}
	ext, err := luahost.New(m, []byte(catLua), luahost.Options{})
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/cat"})
	if err != nil {
		_ = ext.Close()
	}
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, ptywright.HandleOptions{Lifecycle: &contract.LifecycleOptions{CompletionStability: 100 * time.Millisecond}})
	t.Cleanup(func() { require.NoError(t, h.Close()) })
	for i := range 10 {
		prompt := "question" + strconv.Itoa(i)
		res, err := h.Send(context.Background(), "prompt", json.RawMessage(`{"prompt":"`+prompt+`"}`))
		require.NoError(t, err)
		require.Equal(t, ptywright.EffectConfirmed, res.Receipt.Effect, "%+v", res.Receipt)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, _, err := h.Wait(ctx, contract.LifecycleWaitIntent, json.RawMessage(`{"state":"completed"}`))
		cancel()
		require.NoError(t, err, "turn %d never completed", i+1)
		require.Equal(t, i+1, st.Lifecycle.TurnID)
	}
}
