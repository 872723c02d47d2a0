package events_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/events"
	"ptywright/internal/tuitest"
)

func TestBusDelivery(t *testing.T) {
	logger, logs := tuitest.JSONLogger()
	bus := events.New(logger)
	var got []string
	unsubA := bus.Subscribe(func(ev events.Event) { got = append(got, "a:"+ev.Name) })
	bus.Subscribe(func(events.Event) { panic("a broken consumer") })
	bus.Subscribe(func(ev events.Event) { got = append(got, "c:"+ev.Name) })

	require.NoError(t, bus.Emit(events.Event{Name: "tool:ready"}))
	require.Equal(t, []string{"a:tool:ready", "c:tool:ready"}, got, "a panicking subscriber does not stop the others")
	require.Len(t, logs.Matching(t, "event subscriber panicked"), 1)

	unsubA()
	unsubA() // idempotent
	got = nil
	require.NoError(t, bus.Emit(events.Event{Name: "tool:again"}))
	require.Equal(t, []string{"c:tool:again"}, got)

	for _, name := range []string{"", "ready", "Tool:x", "tool:", ":x", "session:made_up", "adapter:started"} {
		require.ErrorIs(t, bus.Emit(events.Event{Name: name}), events.ErrInvalid, name)
	}
}

func TestEmitFillsPayloadAndTime(t *testing.T) {
	bus := events.New(nil)
	ch := tuitest.Collect(t, bus)
	require.NoError(t, bus.Emit(events.Event{Name: "tool:x"}))
	ev := <-ch
	require.JSONEq(t, "null", string(ev.Payload), "a plain event with no payload carries null")
	require.False(t, ev.Time.IsZero())

	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, bus.Emit(events.Event{Name: events.SessionCreated, Payload: []byte(`{"x":1}`), Time: at}))
	ev = <-ch
	require.Equal(t, at, ev.Time, "a time the emitter set is kept")
	require.JSONEq(t, `{"x":1}`, string(ev.Payload))
}

func TestTimestamp(t *testing.T) {
	at := time.Date(2026, 5, 1, 14, 3, 4, 5_678_000, time.FixedZone("CEST", 2*3600))
	require.Equal(t, "2026-05-01T12:03:04.005Z", events.Timestamp(at))
	require.Equal(t, []string{"adapter:policy_decision", "adapter:state_changed", "session:created", "session:exited", "session:resized"}, events.CoreNames())
	for _, n := range events.CoreNames() {
		require.True(t, events.IsCore(n), n)
	}
	require.False(t, events.IsCore("session:made_up"))
}

// A bus calls its subscribers on the emitter's goroutine; a plugin event
// lives in the plugin's namespace.
func ExampleBus() {
	bus := events.New(nil)
	unsubscribe := bus.Subscribe(func(ev events.Event) {
		fmt.Println(ev.Name, ev.Session, string(ev.Payload))
	})
	defer unsubscribe()
	_ = bus.Emit(events.Event{Name: "greeter:greeted", Session: "s1", Payload: []byte(`{"name":"terminal"}`)})
	fmt.Println(bus.Emit(events.Event{Name: "session:made_up"}))
	// Output:
	// greeter:greeted s1 {"name":"terminal"}
	// ptywright: invalid event: "session:made_up" is in a core namespace but is not a core event (adapter:policy_decision, adapter:state_changed, session:created, session:exited, session:resized)
}
