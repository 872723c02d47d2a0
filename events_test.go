package ptywright_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// syncBuffer is a bytes.Buffer safe for a slog handler writing from other
// goroutines while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// records decodes the JSON log lines written so far.
func (s *syncBuffer) records(t testing.TB) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range bytes.Lines(s.b.Bytes()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal(line, &rec), "log line %q", line)
		out = append(out, rec)
	}
	return out
}

// matching returns the records whose msg is msg.
func (s *syncBuffer) matching(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range s.records(t) {
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// jsonLogger returns a logger writing JSON records at debug level into a
// buffer the test reads.
func jsonLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// collect subscribes to bus and returns a channel of every event.
func collect(t testing.TB, bus *ptywright.EventBus) <-chan ptywright.Event {
	t.Helper()
	ch := make(chan ptywright.Event, 1024)
	unsub := bus.Subscribe(func(ev ptywright.Event) { ch <- ev })
	t.Cleanup(unsub)
	return ch
}

// nextEvent returns the next event named name, skipping others, failing
// after 10 s.
func nextEvent(t testing.TB, ch <-chan ptywright.Event, name string) ptywright.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Name == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", name)
		}
	}
}

func TestEventBusDelivery(t *testing.T) {
	logger, logs := jsonLogger()
	bus := ptywright.NewEventBus(logger)
	var got []string
	unsubA := bus.Subscribe(func(ev ptywright.Event) { got = append(got, "a:"+ev.Name) })
	bus.Subscribe(func(ptywright.Event) { panic("a broken consumer") })
	bus.Subscribe(func(ev ptywright.Event) { got = append(got, "c:"+ev.Name) })

	require.NoError(t, bus.Emit(ptywright.Event{Name: "tool:ready"}))
	require.Equal(t, []string{"a:tool:ready", "c:tool:ready"}, got, "a panicking subscriber does not stop the others")
	require.Len(t, logs.matching(t, "event subscriber panicked"), 1)

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
	ch := collect(t, bus)
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
