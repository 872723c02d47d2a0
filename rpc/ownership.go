package rpc

import (
	"time"
)

// Owner modes of session.create's and adapter.start's owner param.
const (
	// ownerShared: the session belongs to the server; any client may use
	// it and it lives until session.close (or adapter.close) or the
	// server's end. The default.
	ownerShared = "shared"
	// ownerConnection: the session is closed, with its process tree, when
	// the connection that created it ends.
	ownerConnection = "connection"
)

// ownership is who may keep a session alive: the creating connection
// (conn, 0 when shared) and, when idle is set, a request naming it at
// least that often.
type ownership struct {
	conn uint64
	idle time.Duration
}

// mode is the owner param's value for o.
func (o ownership) mode() string {
	if o.conn != 0 {
		return ownerConnection
	}
	return ownerShared
}

// ownershipOf validates the owner and idle_timeout_ms params of a start
// from connection c.
func ownershipOf(c *conn, owner string, idleMs *int64) (ownership, error) {
	var o ownership
	switch owner {
	case "", ownerShared:
	case ownerConnection:
		o.conn = c.id
	default:
		return o, invalidParams("owner", "must be %q or %q, got %q", ownerShared, ownerConnection, owner)
	}
	if idleMs != nil {
		if *idleMs < 1 || *idleMs > MaxWaitTimeout.Milliseconds() {
			return o, invalidParams("idle_timeout_ms", "must be between 1 and %d, got %d", MaxWaitTimeout.Milliseconds(), *idleMs)
		}
		o.idle = time.Duration(*idleMs) * time.Millisecond
	}
	return o, nil
}

// touch records a request naming the session, for its idle expiry.
func (e *entry) touch() { e.touched.Store(time.Now().UnixNano()) }

// busyFor marks the session in use by a request that may run long (a
// wait, a turn, an input): it does not expire meanwhile, and its idle time
// counts again from the request's end. Call the result when it ends.
func (e *entry) busyFor() func() {
	e.busy.Add(1)
	return func() {
		e.touch()
		e.busy.Add(-1)
	}
}

// armIdle starts the session's idle expiry, when it has one: expire is
// called once it has had no request for its idle_timeout_ms.
func (e *entry) armIdle(expire func(*entry)) {
	if e.own.idle <= 0 {
		return
	}
	e.touch()
	var check func()
	check = func() {
		if e.removed.Load() {
			return
		}
		idle := time.Since(time.Unix(0, e.touched.Load()))
		if e.busy.Load() > 0 || idle < e.own.idle {
			e.idleMu.Lock()
			if !e.removed.Load() {
				e.idleTimer = time.AfterFunc(max(e.own.idle-idle, e.own.idle/10, time.Millisecond), check)
			}
			e.idleMu.Unlock()
			return
		}
		expire(e)
	}
	e.idleMu.Lock()
	e.idleTimer = time.AfterFunc(e.own.idle, check)
	e.idleMu.Unlock()
}

// disarmIdle stops the idle expiry of a session being removed.
func (e *entry) disarmIdle() {
	e.idleMu.Lock()
	if e.idleTimer != nil {
		e.idleTimer.Stop()
	}
	e.idleMu.Unlock()
}

// closeEntry closes a session the server ends on its own (its owning
// connection ended, or it sat idle): through its adapter when it has one.
func (s *Server) closeEntry(e *entry, why string) {
	var err error
	if e.adapter != "" {
		a := s.adapters.take(e.adapter)
		if a == nil {
			return // Closed meanwhile.
		}
		err = s.closeAdapter(a)
	} else {
		err = s.reg.removeEntry(e)
	}
	if err != nil {
		s.log.Warn("closing a session", "session", e.id, "why", why, "err", redact(err.Error()))
		return
	}
	s.log.Debug("session closed", "session", e.id, "why", why)
}

// releaseOwned closes the sessions connection id owned, once it has ended.
func (s *Server) releaseOwned(id uint64) {
	for _, e := range s.reg.list() {
		if e.own.conn == id {
			s.closeEntry(e, "its connection ended")
		}
	}
}

// expireIdle closes a session that had no request for its
// idle_timeout_ms.
func (s *Server) expireIdle(e *entry) {
	s.closeEntry(e, "idle_timeout_ms passed")
}
