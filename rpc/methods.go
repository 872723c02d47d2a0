package rpc

import (
	"context"
	"ptywright"
	"sort"
	"strconv"
)

// notifications lists the notifications a subscribed client may receive,
// sorted: those of notificationTable this server sends.
func (s *Server) notifications() []string {
	var names []string
	for _, n := range notificationTable {
		if !n.plugins || s.opts.Plugins != nil {
			names = append(names, n.name)
		}
	}
	sort.Strings(names)
	return names
}

// Methods lists the methods the server answers, sorted.
func (s *Server) Methods() []string {
	names := make([]string, 0, len(s.methods))
	for name := range s.methods {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Capabilities is the result of server.capabilities.
type Capabilities struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol"`
	// Methods and Notifications are sorted names.
	Methods       []string `json:"methods"`
	Notifications []string `json:"notifications"`
	Framings      []string `json:"framings"`
	Transports    []string `json:"transports"`
	// EmbeddedLua says whether lua matchers can be evaluated and adapters
	// run: the server has a plugin registry (or a predicate registry)
	// bound.
	EmbeddedLua   bool `json:"embedded_lua"`
	Batch         bool `json:"batch"`
	MaxFrameBytes int  `json:"max_frame_bytes"`
	MaxInFlight   int  `json:"max_in_flight"`
	// MaxSessions is the cap on open sessions (Options.MaxSessions
	// resolved), MaxMemoryBytes the cap on the server's memory; 0 means
	// none. MaxCells is each session's cell budget.
	MaxSessions    int              `json:"max_sessions"`
	MaxMemoryBytes int64            `json:"max_memory_bytes"`
	MaxCells       int              `json:"max_cells"`
	ErrorCodes     map[string]int64 `json:"error_codes"`
}

func (s *Server) capabilities(_ context.Context, _ *conn, raw []byte) (any, error) {
	if err := decodeParams(raw, &struct{}{}); err != nil {
		return nil, err
	}
	framings := make([]string, 0, 2)
	for _, f := range Framings() {
		framings = append(framings, string(f))
	}
	limits := s.capacity.Limits()
	maxCells := s.opts.MaxCells
	if maxCells <= 0 {
		maxCells = ptywright.DefaultMaxCells
	}
	return Capabilities{
		Name:           "ptywright",
		Version:        s.opts.Version,
		Protocol:       "jsonrpc-2.0",
		Methods:        s.Methods(),
		Notifications:  s.notifications(),
		Framings:       framings,
		Transports:     []string{"stdio", "unix"},
		EmbeddedLua:    s.opts.Predicates != nil,
		Batch:          true,
		MaxFrameBytes:  MaxFrameBytes,
		MaxInFlight:    MaxInFlight,
		MaxSessions:    limits.MaxSessions,
		MaxMemoryBytes: limits.MaxMemory,
		MaxCells:       maxCells,
		ErrorCodes:     errorCodes(),
	}, nil
}

type setNotificationsParams struct {
	Enabled  *bool    `json:"enabled" rpc:"required"`
	Adapters []string `json:"adapters"`
	Sessions []string `json:"sessions"`
	// Events adds adapter.event notifications (core and plugin events),
	// under the same filter.
	Events bool `json:"events"`
}

// notificationsResult echoes the resolved subscription.
type notificationsResult struct {
	Enabled  bool     `json:"enabled"`
	Adapters []string `json:"adapters"`
	Sessions []string `json:"sessions"`
	Events   bool     `json:"events,omitempty"` // only when on: the reference shape otherwise
}

func (s *Server) setNotifications(_ context.Context, c *conn, raw []byte) (any, error) {
	var p setNotificationsParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	adapters, err := idList("adapters", p.Adapters)
	if err != nil {
		return nil, err
	}
	sessions, err := idList("sessions", p.Sessions)
	if err != nil {
		return nil, err
	}
	// Ids that match nothing yet are kept: a client may subscribe to an
	// adapter or session before it exists.
	c.notes.set(*p.Enabled, newFilter(sessions, adapters), s.reg.list())
	events := *p.Enabled && p.Events
	c.notes.setEvents(events, newFilter(sessions, adapters))
	return notificationsResult{Enabled: *p.Enabled, Adapters: adapters, Sessions: sessions, Events: events}, nil
}

// idList validates a filter list and removes duplicates, keeping the first
// occurrence's order.
func idList(field string, ids []string) ([]string, error) {
	out := make([]string, 0, len(ids))
	seen := make(map[string]struct{}, len(ids))
	for i, id := range ids {
		if id == "" {
			return nil, invalidParams(field+"["+strconv.Itoa(i)+"]", "must not be empty")
		}
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out, nil
}

// errorCodes names every code the server answers, for server.capabilities.
func errorCodes() map[string]int64 {
	return map[string]int64{
		"parse_error":      CodeParseError,
		"invalid_request":  CodeInvalidRequest,
		"method_not_found": CodeMethodNotFound,
		"invalid_params":   CodeInvalidParams,
		"internal_error":   CodeInternalError,
		"timeout":          CodeTimeout,
		"session_closed":   CodeSessionClosed,
		// ErrProcessExited shares session_closed's code: the program
		// exited, so input and waits can no longer work.
		"process_exited":    CodeSessionClosed,
		"permission_denied": CodePermissionDenied,
		"cancelled":         CodeCancelled,
		"intent_refused":    CodeIntentRefused,
		"capacity":          CodeCapacity,
		"dialog_mismatch":   CodeDialogMismatch,
	}
}
