package ptywright_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/tuitest"
)

func TestEmitCore(t *testing.T) {
	bus := events.New(nil)
	ch := tuitest.Collect(t, bus)
	require.NoError(t, ptywright.EmitCore(bus, ptywright.CoreEvent{Event: events.SessionCreated, Session: "s1", Sequence: 3}))
	ev := <-ch
	require.Equal(t, events.SessionCreated, ev.Name)
	require.Equal(t, "s1", ev.Session)
	require.Empty(t, ev.Plugin)
	var p map[string]any
	require.NoError(t, json.Unmarshal(ev.Payload, &p))
	ts, ok := p["timestamp"].(string)
	require.True(t, ok)
	parsed, err := time.Parse(time.RFC3339Nano, ts)
	require.NoError(t, err, "timestamps are ISO 8601 / RFC 3339")
	require.Equal(t, events.Timestamp(parsed), ts, "UTC with milliseconds")
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, ts)
	delete(p, "timestamp")
	require.Equal(t, map[string]any{"event": "session:created", "session": "s1", "sequence": float64(3)}, p)

	require.ErrorIs(t, ptywright.EmitCore(bus, ptywright.CoreEvent{Event: "tool:x"}), events.ErrInvalid)
	require.ErrorIs(t, ptywright.EmitCore(bus, ptywright.CoreEvent{Event: "session:made_up"}), events.ErrInvalid)
	select {
	case ev := <-ch:
		t.Fatalf("a refused core event was delivered: %+v", ev)
	default:
	}
}
