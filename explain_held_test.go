package ptywright_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/tuitest"
	"ptywright/plugins"
)

// heldPlugin reads "ready" or not, remembers the sequence it classified
// last (probe types it), and reports an assessment so a lifecycle tracks it.
const heldPlugin = `local M = {}
local last = nil
function M.classify(ctx)
  last = ctx.sequence
  local a = {availability = "supported", business_state = "working", input_mode = "closed", ui_context = "unknown"}
  local r
  if ctx.screen:find("ready", 1, true) then
    r = {state = "ready", rule = "held.ready", evidence = "ready shown", assessment = a}
  else
    r = {state = "starting", rule = "held.nothing", evidence = "nothing yet", assessment = a}
  end
  if ctx.explain then
    r.considered = {{rule = "held.error", reason = "no error"}}
  end
  return r
end
function M.probe() return {actions = {ptywright.action.text("last=" .. tostring(last) .. "\n")}} end
function M.wait_turn_matcher() return ptywright.matcher.contains_text("never shown") end
return M`

func startHeld(t *testing.T, opts ptywright.HandleOptions) (*ptywright.ExtensionHandle, *ptywright.Session) {
	t.Helper()
	plugins := tuitest.EchoPlugins(t, plugins.Options{})
	_, err := plugins.Load(tuitest.WritePlugin(t, "held", "", heldPlugin))
	require.NoError(t, err)
	ext, err := plugins.NewExtension("held")
	require.NoError(t, err)
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "read line; echo ready; while read line; do :; done"}})
	require.NoError(t, err)
	h := ptywright.NewExtensionHandle(s, ext, opts)
	t.Cleanup(func() { _ = h.Close() })
	return h, s
}

// TestExplainAt explains held classifications by their sequence, refuses
// one no longer held with a typed error naming the oldest, and leaves the
// plugin's memory as the newest classification left it.
func TestExplainAt(t *testing.T) {
	tuitest.NoLeak(t)
	h, s := startHeld(t, ptywright.HandleOptions{})
	ctx := context.Background()

	_, err := h.Explain(ctx, ptywright.ExplainLast())
	var nh *ptywright.NotHeldError
	require.ErrorAs(t, err, &nh, "nothing classified yet")
	require.ErrorIs(t, err, ptywright.ErrNotHeld)
	require.Zero(t, nh.Held)

	first, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "starting", first.State)
	_, err = s.Perform(ctx, ptywright.Text("go\n"))
	require.NoError(t, err)
	_, err = s.Wait(ctx, ptywright.ContainsText("ready"))
	require.NoError(t, err)
	second, err := h.State(ctx)
	require.NoError(t, err)
	require.Equal(t, "ready", second.State)
	require.Greater(t, second.Sequence, first.Sequence)

	x, err := h.Explain(ctx, ptywright.ExplainAt(first.Sequence))
	require.NoError(t, err)
	require.Equal(t, "starting", x.State)
	require.Equal(t, "held.nothing", x.Rule)
	require.Equal(t, first.Sequence, x.Sequence)
	require.Equal(t, []contract.ConsideredState{{Rule: "held.error", Reason: "no error"}}, x.Considered)
	// A sequence between two classifications: the newest at or before it.
	x, err = h.Explain(ctx, ptywright.ExplainAt(second.Sequence-1))
	require.NoError(t, err)
	require.Equal(t, first.Sequence, x.Sequence)
	x, err = h.Explain(ctx, ptywright.ExplainLast())
	require.NoError(t, err)
	require.Equal(t, "held.ready", x.Rule)
	require.Equal(t, second.Sequence, x.Sequence)

	// Explaining the older one classified its context again; the plugin's
	// memory is back at the newest classification.
	_, err = h.Explain(ctx, ptywright.ExplainAt(first.Sequence))
	require.NoError(t, err)
	_, err = h.Send(ctx, "probe", nil)
	require.NoError(t, err)
	_, err = s.Wait(ctx, ptywright.ContainsText(fmt.Sprintf("last=%d", second.Sequence)))
	require.NoError(t, err)

	// Later than anything classified: not held.
	after, err := h.State(ctx)
	require.NoError(t, err)
	_, err = h.Explain(ctx, ptywright.ExplainAt(after.Sequence+100))
	require.ErrorAs(t, err, &nh)
	require.Equal(t, after.Sequence, nh.Newest)
	// The oldest drops out after Capacity (8) more.
	require.Equal(t, 8, nh.Capacity)
	for range nh.Capacity {
		_, err = h.State(ctx)
		require.NoError(t, err)
	}
	_, err = h.Explain(ctx, ptywright.ExplainAt(first.Sequence))
	require.ErrorIs(t, err, ptywright.ErrNotHeld)
	require.ErrorAs(t, err, &nh)
	require.Equal(t, first.Sequence, nh.Sequence)
	require.Equal(t, nh.Capacity, nh.Held)
	require.Greater(t, nh.Oldest, first.Sequence)
	require.Contains(t, err.Error(), fmt.Sprintf("the oldest held is at sequence %d", nh.Oldest))

	require.NoError(t, h.Close())
	_, err = h.Explain(ctx, ptywright.ExplainLast())
	require.ErrorIs(t, err, ptywright.ErrSessionClosed)
}

// TestExplainHeldDoesNotQueue: a held classification is explained while a
// wait holds the handle, and a call queued behind that wait that times out
// carries the last classification's explanation, not a new one's.
func TestExplainHeldDoesNotQueue(t *testing.T) {
	tuitest.NoLeak(t)
	h, s := startHeld(t, ptywright.HandleOptions{})
	ctx := context.Background()
	st, err := h.State(ctx)
	require.NoError(t, err)

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := h.Wait(wctx, "", nil)
		done <- err
	}()
	// Once the wait holds the lock, a Project (which does not classify)
	// queues behind it.
	require.Eventually(t, func() bool {
		qctx, qcancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer qcancel()
		_, err := h.Project(qctx, 0, 0)
		return errors.Is(err, ptywright.ErrTimeout)
	}, 10*time.Second, time.Millisecond)
	// The screen moves on after the last classification: typed text echoes.
	_, err = s.Perform(ctx, ptywright.Text("abc"))
	require.NoError(t, err)
	_, err = s.Wait(ctx, ptywright.ContainsText("abc"))
	require.NoError(t, err)

	// A held classification is explained at once.
	x, err := h.Explain(ctx, ptywright.ExplainAt(st.Sequence))
	require.NoError(t, err)
	require.Equal(t, "held.nothing", x.Rule)
	// A queued wait times out with the last classification's explanation
	// (the sequence of st, not the screen's now).
	qctx, qcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer qcancel()
	_, _, err = h.Wait(qctx, "", nil)
	var we *ptywright.WaitError
	require.ErrorAs(t, err, &we)
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.NotNil(t, we.Explanation)
	require.Equal(t, st.Sequence, we.Explanation.Sequence)
	require.Greater(t, we.Sequence, st.Sequence, "the screen moved on; the explanation says which screen it classified")
	require.Equal(t, "held.nothing", we.Explanation.Rule)

	cancel()
	err = <-done
	require.ErrorAs(t, err, &we)
	require.ErrorIs(t, err, ptywright.ErrCancelled)
	require.NotNil(t, we.Explanation)
	require.Equal(t, st.Sequence, we.Explanation.Sequence)
}

// TestLifecycleWaitTimeoutExplains: wait_lifecycle that times out carries
// the explanation of the lifecycle's last classification.
func TestLifecycleWaitTimeoutExplains(t *testing.T) {
	tuitest.NoLeak(t)
	h, s := startHeld(t, ptywright.HandleOptions{Lifecycle: &contract.LifecycleOptions{}})
	ctx := context.Background()
	_, err := s.Perform(ctx, ptywright.Text("go\n"))
	require.NoError(t, err)
	_, err = s.Wait(ctx, ptywright.ContainsText("ready"))
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, _, err = h.Wait(wctx, contract.LifecycleWaitIntent, []byte(`{"state": "completed"}`))
	var we *ptywright.WaitError
	require.ErrorAs(t, err, &we)
	require.ErrorIs(t, err, ptywright.ErrTimeout)
	require.NotNil(t, we.Explanation)
	require.Contains(t, []string{"held.ready", "held.nothing"}, we.Explanation.Rule)
	require.LessOrEqual(t, we.Explanation.Sequence, we.Sequence)
}
