package mcpserver

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"ptywright"
	"ptywright/manifest"
)

// errClientGone is what a start racing the client's disconnect gets: the
// session it just made is closed at once rather than left behind.
var errClientGone = errors.New("the client has disconnected")

// client is one connection's state: the sessions and adapters it started,
// which die with it. Its mutex guards only the maps; no library call is
// made under it.
type client struct {
	srv *Server

	mu     sync.Mutex
	closed bool
	// nextSession and nextAdapter number ids as the JSON-RPC server
	// does: s1, s2, ... and e1, e2, ..., each counted apart.
	nextSession int
	nextAdapter int
	sessions    map[string]*sessionEntry
	adapters    map[string]*adapterEntry
}

type sessionEntry struct {
	id   string
	sess *ptywright.Session
	// adapter owns the session when set: session_close refuses it.
	adapter string
	// leave gives back the session's slot of the server's capacity.
	leave func()
}

// close closes the session, reaping its processes, and frees its slot.
func (e *sessionEntry) close() error {
	err := e.sess.Close()
	e.leave()
	return err
}

type adapterEntry struct {
	id       string
	plugin   string
	manifest manifest.Manifest
	h        *ptywright.ExtensionHandle
	session  *sessionEntry
}

func newClient(s *Server) *client {
	return &client{srv: s, sessions: map[string]*sessionEntry{}, adapters: map[string]*adapterEntry{}}
}

// addSession registers sess under a new id. After the client is gone it
// closes sess and fails.
func (c *client) addSession(sess *ptywright.Session, leave func()) (*sessionEntry, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = sess.Close() // Best effort: nobody is left to use it.
		leave()
		return nil, errClientGone
	}
	c.nextSession++
	e := &sessionEntry{id: "s" + strconv.Itoa(c.nextSession), sess: sess, leave: leave}
	c.sessions[e.id] = e
	c.mu.Unlock()
	return e, nil
}

// addAdapter registers an adapter over a registered session under a new
// id. After the client is gone it closes both and fails.
func (c *client) addAdapter(plugin string, m manifest.Manifest, h *ptywright.ExtensionHandle, e *sessionEntry) (*adapterEntry, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = h.Close() // Best effort: closes the session too; nobody is left to use it.
		return nil, errClientGone
	}
	c.nextAdapter++
	a := &adapterEntry{id: "e" + strconv.Itoa(c.nextAdapter), plugin: plugin, manifest: m, h: h, session: e}
	e.adapter = a.id
	c.adapters[a.id] = a
	c.mu.Unlock()
	return a, nil
}

func (c *client) session(id string) (*sessionEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.sessions[id]
	if !ok {
		return nil, fmt.Errorf("unknown session %q (open sessions: %s)", id, idList(c.sessions))
	}
	return e, nil
}

func (c *client) adapter(id string) (*adapterEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.adapters[id]
	if !ok {
		return nil, fmt.Errorf("unknown adapter %q (open adapters: %s)", id, idList(c.adapters))
	}
	return a, nil
}

// takeSession removes a session the client may close itself: not one an
// adapter owns.
func (c *client) takeSession(id string) (*sessionEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.sessions[id]
	if !ok {
		return nil, fmt.Errorf("unknown session %q (open sessions: %s)", id, idList(c.sessions))
	}
	if e.adapter != "" {
		return nil, fmt.Errorf("session %s belongs to adapter %s: close it with adapter_close", id, e.adapter)
	}
	delete(c.sessions, id)
	return e, nil
}

// takeAdapter removes an adapter and its session.
func (c *client) takeAdapter(id string) (*adapterEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.adapters[id]
	if !ok {
		return nil, fmt.Errorf("unknown adapter %q (open adapters: %s)", id, idList(c.adapters))
	}
	delete(c.adapters, id)
	delete(c.sessions, a.session.id)
	return a, nil
}

// close closes everything the client started and refuses anything new.
// Sessions close first, which ends any wait holding an adapter's lock.
func (c *client) close() error {
	c.mu.Lock()
	c.closed = true
	sessions, adapters := c.sessions, c.adapters
	c.sessions, c.adapters = map[string]*sessionEntry{}, map[string]*adapterEntry{}
	c.mu.Unlock()
	var errs []error
	for _, e := range sessions {
		if err := e.close(); err != nil {
			errs = append(errs, fmt.Errorf("session %s: %w", e.id, err))
		}
	}
	for _, a := range adapters {
		_ = a.h.Close() // Best effort: its session's error is above; closing a Lua state cannot fail.
	}
	return errors.Join(errs...)
}

func idList[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
