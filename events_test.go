package ptywright_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

func TestEventBusDelivery(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := ptywright.NewEventBus(logger)
	var got []string
	unsubA := bus.Subscribe(func(ev ptywright.Event) { got = append(got, "a:"+ev.Name) })
	bus.Subscribe(func(ptywright.Event) { panic("a broken consumer") })
	bus.Subscribe(func(ev ptywright.Event) { got = append(got, "c:"+ev.Name) })

	require.NoError(t, bus.Emit(ptywright.Event{Name: "tool:ready"}))
	require.Equal(t, []string{"a:tool:ready", "c:tool:ready"}, got, "a panicking subscriber does not stop the others")
	require.Len(t, logs.Matching(t, "event subscriber panicked"), 1)

	unsubA()
	unsubA() // idempotent
	got = nil
	require.NoError(t, bus.Emit(ptywright.Event{Name: "tool:again"}))
	require.Equal(t, []string{"c:tool:again"}, got)

	for _, name := range []string{"", "ready", "Tool:x", "tool:", ":x", "session:made_up", "adapter:started"} {
		require.ErrorIs(t, bus.Emit(ptywright.Event{Name: name}), ptywright.ErrInvalidEvent, name)
	}
	require.ErrorIs(t, bus.EmitCore(ptywright.CoreEvent{Event: "tool:x"}), ptywright.ErrInvalidEvent)
}

func TestEventBusCorePayload(t *testing.T) {
	bus := ptywright.NewEventBus(nil)
	ch := tuitest.Collect(t, bus)
	require.NoError(t, bus.EmitCore(ptywright.CoreEvent{Event: ptywright.EventSessionCreated, Session: "s1", Sequence: 3}))
	ev := <-ch
	require.Equal(t, ptywright.EventSessionCreated, ev.Name)
	require.Equal(t, "s1", ev.Session)
	require.Empty(t, ev.Plugin)
	var p map[string]any
	require.NoError(t, json.Unmarshal(ev.Payload, &p))
	ts, ok := p["timestamp"].(string)
	require.True(t, ok)
	parsed, err := time.Parse(time.RFC3339Nano, ts)
	require.NoError(t, err, "timestamps are ISO 8601 / RFC 3339")
	require.Equal(t, ptywright.EventTime(parsed), ts, "UTC with milliseconds")
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, ts)
	delete(p, "timestamp")
	require.Equal(t, map[string]any{"event": "session:created", "session": "s1", "sequence": float64(3)}, p)

	// A plain event with no payload carries null.
	require.NoError(t, bus.Emit(ptywright.Event{Name: "tool:x"}))
	ev = <-ch
	require.JSONEq(t, "null", string(ev.Payload))
	require.False(t, ev.Time.IsZero())
}

func TestEventTime(t *testing.T) {
	at := time.Date(2026, 5, 1, 14, 3, 4, 5_678_000, time.FixedZone("CEST", 2*3600))
	require.Equal(t, "2026-05-01T12:03:04.005Z", ptywright.EventTime(at))
	require.Equal(t, []string{"adapter:state_changed", "session:created", "session:exited", "session:resized"}, ptywright.CoreEventNames())
}
