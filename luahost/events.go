package luahost

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/luart"
)

// maxHandlerQueue bounds the events waiting for one instance's handlers;
// past it the oldest are dropped (and the drop logged), so a plugin whose
// handlers are slow, or whose classify holds its lock, never holds up the
// emitter or grows memory.
const maxHandlerQueue = 256

// luaEvents delivers bus events to one instance's handlers. The bus calls
// post, which only queues; a goroutine started for a burst and ending when
// the queue is empty runs the handlers under the instance's lock, one
// event at a time, in order. Idle instances have no goroutine.
type luaEvents struct {
	// handled is the set of events the instance has handlers for, read
	// by post without the instance's lock.
	handled atomic.Pointer[map[string]bool]

	mu      sync.Mutex
	unsub   func()
	queue   []events.Event
	dropped int
	running bool
	stopped bool
	wg      sync.WaitGroup
}

func (ev *luaEvents) setHandled(set map[string]bool) { ev.handled.Store(&set) }

// subscribe attaches the instance to bus, replacing any previous bus.
func (ev *luaEvents) subscribe(bus *events.Bus, e *Extension) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.stopped {
		return
	}
	if ev.unsub != nil {
		ev.unsub()
	}
	ev.unsub = bus.Subscribe(func(x events.Event) { ev.post(x, e) })
}

func (ev *luaEvents) post(x events.Event, e *Extension) {
	if x.Source == any(e) {
		return // an instance does not hear itself
	}
	if h := ev.handled.Load(); h == nil || !(*h)[x.Name] {
		return
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.stopped {
		return
	}
	if len(ev.queue) >= maxHandlerQueue {
		ev.queue = ev.queue[1:]
		ev.dropped++
	}
	ev.queue = append(ev.queue, x)
	if !ev.running {
		ev.running = true
		ev.wg.Add(1)
		go ev.dispatch(e)
	}
}

// dispatch runs handlers until the queue is empty or the instance stops.
func (ev *luaEvents) dispatch(e *Extension) {
	defer ev.wg.Done()
	for {
		ev.mu.Lock()
		if ev.stopped || len(ev.queue) == 0 {
			ev.running = false
			ev.queue = nil
			ev.mu.Unlock()
			return
		}
		x := ev.queue[0]
		ev.queue = ev.queue[1:]
		dropped := ev.dropped
		ev.dropped = 0
		ev.mu.Unlock()

		e.handle(x, dropped)
	}
}

// handle runs the instance's handlers of x under its lock; dropped is how
// many events were dropped before it.
func (e *Extension) handle(x events.Event, dropped int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if dropped > 0 {
		e.rt.Logger().Warn("events dropped: the plugin's handlers fell behind", "dropped", dropped)
	}
	for _, err := range e.rt.CallHandlers(context.Background(), luart.Event{
		Name: x.Name, Plugin: x.Plugin, Session: x.Session, Adapter: x.Adapter,
		Payload: x.Payload, Time: x.Time, Depth: x.Depth,
	}) {
		e.rt.Logger().Warn("event handler failed", "event", x.Name, "err", ptywright.DefaultRedactor().Redact(err.Error()))
	}
}

// stop detaches from the bus and waits for a handler in progress.
func (ev *luaEvents) stop() {
	ev.mu.Lock()
	ev.stopped = true
	if ev.unsub != nil {
		ev.unsub()
		ev.unsub = nil
	}
	ev.mu.Unlock()
	ev.wg.Wait()
}

// BindEvents attaches the instance to bus and scope: what it emits from
// now on goes to bus tagged with scope, and its handlers receive bus's
// events. ExtensionHandle calls it with HandleOptions.Events and Scope;
// calling it again rebinds. A nil bus keeps the current one and changes
// only the scope.
func (e *Extension) BindEvents(bus *events.Bus, scope events.Scope) {
	e.mu.Lock()
	e.rt.SetScope(luart.Scope(scope))
	if bus != nil && bus != e.bus {
		e.bus = bus
		e.mu.Unlock()
		e.events.subscribe(bus, e)
		return
	}
	e.mu.Unlock()
}

// RunCleanups runs the functions the plugin registered with
// ptywright.on_cleanup that have not run yet, newest first, each exactly
// once and under its own call budget, and returns their failures joined
// (they are logged through the plugin's logger too). The instance stays
// usable; cleanups it registers later run at the next RunCleanups or at
// Close. ExtensionHandle calls it when the session's program exits.
func (e *Extension) RunCleanups(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rt.Closed() {
		return nil
	}
	errs := e.rt.RunCleanups(ctx)
	for _, err := range errs {
		e.rt.Logger().Warn("plugin cleanup failed", "err", ptywright.DefaultRedactor().Redact(err.Error()))
	}
	return errors.Join(errs...)
}

var (
	_ ptywright.Cleaner = (*Extension)(nil)
	_ events.Binder     = (*Extension)(nil)
)
