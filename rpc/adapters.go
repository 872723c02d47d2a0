package rpc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"ptywright"
	"ptywright/manifest"
)

// adapter is one live adapter: an ExtensionHandle over a fresh instance of
// a plugin, driving a session registered in the session registry under the
// adapter's id.
type adapter struct {
	id       string
	num      uint64 // creation order, for sorting ids
	plugin   string
	manifest manifest.Manifest // the permissions are fixed at start
	h        *ptywright.ExtensionHandle
	e        *entry
	// policy decides its permission dialogs (nil: none); policySource
	// says whose it is: "adapter.start", "server" or "none".
	policy       *ptywright.Policy
	policySource string
}

// adapterSet is the adapters every connection shares, and the waits bound
// to client-chosen ids so adapter.cancel_wait can find them.
type adapterSet struct {
	mu     sync.Mutex
	closed bool
	next   uint64
	live   map[string]*adapter
	waits  map[string]*boundWait
}

// boundWait is a wait registered under its wait_id.
type boundWait struct {
	id      string
	adapter string
	cancel  context.CancelFunc
	// cancelled is set (under adapterSet.mu) by adapter.cancel_wait, which
	// also unbinds the wait: the waiter then reports -32005 whatever the
	// wait itself returned, so a cancel that says it landed always did.
	cancelled bool
}

func newAdapterSet() *adapterSet {
	return &adapterSet{live: make(map[string]*adapter), waits: make(map[string]*boundWait)}
}

// nextID allocates the next adapter id ("e1", "e2", ...). An id whose start
// fails is not reused.
func (as *adapterSet) nextID() (string, uint64) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.next++
	return "e" + strconv.FormatUint(as.next, 10), as.next
}

// add registers a started adapter, unless the server is closing or its
// plugin was unloaded since the adapter's instance was made: unload checks
// for live adapters under the same lock, so a plugin is never unloaded
// under a live adapter.
func (as *adapterSet) add(a *adapter, stillRegistered func() bool) error {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.closed {
		return fmt.Errorf("%w: %w", ErrInternal, ErrServerClosed)
	}
	if !stillRegistered() {
		return invalidParams("plugin", "plugin %q was unloaded while the adapter started", a.plugin)
	}
	as.live[a.id] = a
	return nil
}

// get returns the live adapter id; an unknown id is an invalid-params
// error.
func (as *adapterSet) get(id string) (*adapter, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	a, ok := as.live[id]
	if !ok {
		return nil, invalidParams("adapter", "unknown adapter %q", id)
	}
	return a, nil
}

// take unregisters the adapter id and returns it, or nil when it is not
// live.
func (as *adapterSet) take(id string) *adapter {
	as.mu.Lock()
	defer as.mu.Unlock()
	a := as.live[id]
	delete(as.live, id)
	return a
}

// list returns the live adapters in creation order.
func (as *adapterSet) list() []*adapter {
	as.mu.Lock()
	out := make([]*adapter, 0, len(as.live))
	for _, a := range as.live {
		out = append(out, a)
	}
	as.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].num < out[j].num })
	return out
}

// unloadIfUnused runs unload unless a live adapter uses plugin, under the
// lock add takes, so no adapter can start in between.
func (as *adapterSet) unloadIfUnused(plugin string, unload func() error) error {
	as.mu.Lock()
	defer as.mu.Unlock()
	var users []*adapter
	for _, a := range as.live {
		if a.plugin == plugin {
			users = append(users, a)
		}
	}
	if len(users) > 0 {
		sort.Slice(users, func(i, j int) bool { return users[i].num < users[j].num })
		ids := make([]string, len(users))
		for i, a := range users {
			ids[i] = a.id
		}
		return invalidParams("plugin", "plugin %q has live adapters (%s): close them with adapter.close first", plugin, strings.Join(ids, ", "))
	}
	return unload()
}

// closeAll refuses new adapters and returns every live one.
func (as *adapterSet) closeAll() []*adapter {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.closed = true
	out := make([]*adapter, 0, len(as.live))
	for id, a := range as.live {
		out = append(out, a)
		delete(as.live, id)
	}
	return out
}

// bindWait registers cancel under waitID before the wait takes the
// adapter's lock, so adapter.cancel_wait can interrupt it from any
// connection even while another call holds that lock.
func (as *adapterSet) bindWait(waitID, adapterID string, cancel context.CancelFunc) (*boundWait, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if w, ok := as.waits[waitID]; ok {
		return nil, invalidParams("wait_id", "%q is already in use by a wait on adapter %s", waitID, w.adapter)
	}
	w := &boundWait{id: waitID, adapter: adapterID, cancel: cancel}
	as.waits[waitID] = w
	return w, nil
}

// finishWait unbinds w once its wait returned and reports whether
// adapter.cancel_wait cancelled it first.
func (as *adapterSet) finishWait(w *boundWait) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.waits[w.id] == w {
		delete(as.waits, w.id)
	}
	return w.cancelled
}

// cancelWait cancels the wait bound to waitID. It reports the wait's
// adapter, or ok false for an unknown or finished id.
func (as *adapterSet) cancelWait(waitID string) (adapterID string, ok bool) {
	as.mu.Lock()
	w, found := as.waits[waitID]
	if found {
		delete(as.waits, waitID)
		w.cancelled = true
	}
	as.mu.Unlock()
	if !found {
		return "", false
	}
	w.cancel()
	return w.adapter, true
}

// cancelledWait is the error of a wait adapter.cancel_wait cancelled. The
// wait's own error (a *WaitError with the last screen) is kept as the
// cause when there is one, for its evidence.
func cancelledWait(waitID string, err error) error {
	if err != nil && errors.Is(err, ptywright.ErrCancelled) {
		return fmt.Errorf("wait %q cancelled by adapter.cancel_wait: %w", waitID, err)
	}
	return fmt.Errorf("%w: wait %q cancelled by adapter.cancel_wait", ptywright.ErrCancelled, waitID)
}
