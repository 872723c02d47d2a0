package ptywright_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
)

// coreLog subscribes to a bus and keeps the core events it hears, decoded.
type coreLog struct {
	mu  sync.Mutex
	evs []ptywright.CoreEvent
}

func listen(t *testing.T, bus *events.Bus) *coreLog {
	l := &coreLog{}
	t.Cleanup(bus.Subscribe(func(ev events.Event) {
		var ce ptywright.CoreEvent
		if err := json.Unmarshal(ev.Payload, &ce); err != nil || ce.Event != ev.Name {
			panic(fmt.Sprintf("event %s: payload %s", ev.Name, ev.Payload))
		}
		l.mu.Lock()
		l.evs = append(l.evs, ce)
		l.mu.Unlock()
	}))
	return l
}

func (l *coreLog) events() []ptywright.CoreEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]ptywright.CoreEvent(nil), l.evs...)
}

func (l *coreLog) names() []string {
	var out []string
	for _, ce := range l.events() {
		out = append(out, ce.Event)
	}
	return out
}

func newBus() *events.Bus { return events.New(slog.New(slog.DiscardHandler)) }

// TestSessionPublishesItsEvents: a Go program receives the session's core
// events on its own bus: session:created at once, session:resized for
// every resize that changes the size (a resize back to an earlier size
// included), none for one that does not, and session:exited once, with
// the exit status; sequences never go back (an exit does not advance it).
func TestSessionPublishesItsEvents(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "cat", Size: ptywright.Size{Rows: 24, Cols: 80}})
	require.NoError(t, err)
	defer s.Close()
	bus := newBus()
	l := listen(t, bus)
	scope := events.Scope{Session: "build", Adapter: "a1"}
	s.PublishEvents(bus, scope)
	require.Equal(t, []string{events.SessionCreated}, l.names(), "session:created is reported at once")

	sizes := []ptywright.Size{{Rows: 30, Cols: 100}, {Rows: 30, Cols: 100}, {Rows: 24, Cols: 80}, {Rows: 30, Cols: 100}}
	for _, size := range sizes {
		require.NoError(t, s.Resize(size))
	}
	require.NoError(t, s.Signal(ptywright.SignalTerm))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = s.Wait(ctx, ptywright.ProcessExited())
	require.NoError(t, err)

	evs := l.events()
	require.Equal(t, []string{"session:created", "session:resized", "session:resized", "session:resized", "session:exited"}, l.names())
	for i, want := range []ptywright.Size{sizes[0], sizes[2], sizes[3]} {
		require.Equal(t, &want, evs[1+i].Size, "resize %d", i)
	}
	exit := evs[4].Exit
	require.NotNil(t, exit)
	require.Equal(t, ptywright.ExitStatus{Code: -1, Signal: "term"}, *exit)
	for i, ce := range evs {
		require.Equal(t, scope.Session, ce.Session)
		require.Equal(t, scope.Adapter, ce.Adapter)
		_, err := time.Parse(time.RFC3339Nano, ce.Timestamp)
		require.NoError(t, err)
		if i > 0 && ce.Event == events.SessionResized {
			require.Greater(t, ce.Sequence, evs[i-1].Sequence, "event %d (%s)", i, ce.Event)
		}
		if i > 0 {
			require.GreaterOrEqual(t, ce.Sequence, evs[i-1].Sequence, "event %d (%s)", i, ce.Event)
		}
	}

	// Nothing more after the exit, Close included.
	require.NoError(t, s.Close())
	require.Len(t, l.events(), 5)
}

// TestPublishEventsAfterExit: a bus given after the program exited hears
// session:created and then session:exited, once; another bus given
// earlier is not told again; a nil bus is ignored.
func TestPublishEventsAfterExit(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "exit 3"}})
	require.NoError(t, err)
	defer s.Close()
	early, late := newBus(), newBus()
	le, ll := listen(t, early), listen(t, late)
	s.PublishEvents(early, events.Scope{Session: "early"})
	<-s.Exited()
	s.PublishEvents(nil, events.Scope{})
	s.PublishEvents(late, events.Scope{Session: "late"})
	require.NoError(t, s.Close())

	for _, l := range []*coreLog{le, ll} {
		evs := l.events()
		require.Equal(t, []string{"session:created", "session:exited"}, l.names())
		require.Equal(t, &ptywright.ExitStatus{Code: 3}, evs[1].Exit)
	}
	require.Equal(t, "late", ll.events()[1].Session)
}

// TestPublishRacesTheExit gives a bus at the moment the program exits, many
// times: each bus hears session:created first and session:exited exactly
// once, whichever of the two happens first.
func TestPublishRacesTheExit(t *testing.T) {
	for i := range 40 {
		s, err := ptywright.Start(ptywright.Options{Program: "true"})
		require.NoError(t, err)
		buses := make([]*coreLog, 4)
		var wg sync.WaitGroup
		for j := range buses {
			bus := newBus()
			buses[j] = listen(t, bus)
			wg.Go(func() { s.PublishEvents(bus, events.Scope{Session: fmt.Sprint(j)}) })
		}
		wg.Wait()
		<-s.Exited()
		require.NoError(t, s.Close())
		for j, l := range buses {
			require.Equal(t, []string{"session:created", "session:exited"}, l.names(), "iteration %d, bus %d", i, j)
		}
	}
}

// TestResizeEventsKeepTheirOrder resizes from several goroutines at once:
// the session:resized events arrive in the order the resizes were made, so
// the last one names the size the session ends with.
func TestResizeEventsKeepTheirOrder(t *testing.T) {
	s, err := ptywright.Start(ptywright.Options{Program: "cat"})
	require.NoError(t, err)
	defer s.Close()
	bus := newBus()
	l := listen(t, bus)
	s.PublishEvents(bus, events.Scope{Session: "s"})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				assert.NoError(t, s.Resize(ptywright.Size{Rows: 10 + g, Cols: 40 + i})) // Not require: not the test's goroutine.
			}
		})
	}
	wg.Wait()
	evs := l.events()
	require.Greater(t, len(evs), 1)
	last := evs[len(evs)-1]
	require.Equal(t, events.SessionResized, last.Event)
	require.Equal(t, s.Size(), *last.Size)
	for i := 1; i < len(evs); i++ {
		require.Greater(t, evs[i].Sequence, evs[i-1].Sequence)
		if i > 1 {
			require.NotEqual(t, *evs[i-1].Size, *evs[i].Size, "event %d repeats the size before it", i)
		}
	}
}

// A session reports its core events on a bus the program gives it.
func ExampleSession_PublishEvents() {
	bus := events.New(nil)
	var mu sync.Mutex
	var seen []string
	defer bus.Subscribe(func(ev events.Event) {
		mu.Lock() // Subscribers run on the session's goroutines.
		seen = append(seen, ev.Name)
		mu.Unlock()
	})()

	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "read x"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s.PublishEvents(bus, events.Scope{Session: "demo"})
	_ = s.Resize(ptywright.Size{Rows: 30, Cols: 100})
	_ = s.Send(context.Background(), ptywright.Text("\r"))
	<-s.Exited()
	_ = s.Close()

	mu.Lock()
	defer mu.Unlock()
	fmt.Println(seen)
	// Output: [session:created session:resized session:exited]
}
