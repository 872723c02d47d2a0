package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
	"ptywright/internal/host"
	"ptywright/plugins"
)

// Options configure a Server. The zero value serves session.* with lua
// matchers disabled and logs through slog.Default.
type Options struct {
	// Plugins is the plugin registry the extension layer runs on: with it
	// the server answers adapter.* and plugin.* (without it they are not
	// methods at all) and decides lua matchers. The server never closes
	// it: it belongs to the caller, who closes it after Server.Close.
	Plugins *plugins.Registry
	// AllowPluginLoad enables plugin.load and plugin.unload (the CLI's
	// --allow-plugin-load). Without it they are denied with -32004 and
	// data.reason "server_did_not_grant_plugin_load".
	AllowPluginLoad bool
	// Predicates decides lua matchers in session.wait and in adapters'
	// wait matchers. Nil means Plugins when that is set; with neither, a
	// matcher with a lua branch is rejected as invalid params ("no plugin
	// registry").
	Predicates contract.PredicateRegistry
	// Policy decides the permission dialogs of every adapter started
	// without a policy of its own (adapter.start's policy; the CLI's
	// --policy): see ptywright.Policy. Nil decides none.
	Policy *ptywright.Policy
	// Audit, when set, records every answer to a dialog an adapter of
	// this server delivers or refuses (the CLI's --audit): one JSON line
	// each, decided_by "connection N" for a client's answer. The server
	// does not close it.
	Audit *ptywright.AuditLog
	// Logger receives diagnostics. Nil means slog.Default(), which writes
	// to stderr: never stdout, which may be the protocol stream.
	Logger *slog.Logger
	// Version is what server.capabilities reports; "" means "devel".
	Version string
	// Framing is used for the connections Serve and ListenUnix accept; ""
	// means NDJSON.
	Framing Framing
	// MaxHookTimeout caps plugin.call's timeout_ms; 0 means
	// luahost.MaxHookTimeout (60 s), which also caps anything larger.
	MaxHookTimeout time.Duration
	// Engine is the terminal emulator of the sessions session.create
	// starts without an engine param (the CLI's --engine); "" means
	// ptywright.EngineVTCore.
	Engine ptywright.Engine
	// MaxSessions caps the sessions open at once, adapters' included
	// (the CLI's --max-sessions): past it session.create and adapter.start
	// answer -32007 (data {limit: "sessions", max, in_use}) and nothing
	// running is touched. 0 means a default derived from the process's
	// limits (RLIMIT_NOFILE, RLIMIT_NPROC where it applies; see
	// docs/protocol.md), negative no cap.
	MaxSessions int
	// MaxMemory caps, in bytes, the Go runtime's memory at the moment a
	// session is asked for (--max-memory): past it starts answer -32007
	// with limit "memory". 0 means three quarters of the cgroup's
	// memory.max on Linux when one is set, negative no cap. Under
	// RLIMIT_AS the process's virtual size is watched too (limit
	// "address_space").
	MaxMemory int64
	// MaxCells is each session's cell budget, rows times cols, at
	// session.create, adapter.start and session.resize (--max-cells); 0
	// means ptywright.DefaultMaxCells.
	MaxCells int
}

// handlerFunc runs one method. params is the raw "params" member, nil when
// absent. The result is encoded as the response's result; an error is
// mapped to its JSON-RPC code (see Code).
type handlerFunc func(ctx context.Context, c *conn, params []byte) (any, error)

// Server serves the ptywright JSON-RPC protocol on any number of
// connections, which share one session registry. Each connection has its
// own notification subscription.
//
// Close must be called: it closes every connection and every session,
// reaping the children.
type Server struct {
	opts    Options
	log     *slog.Logger
	methods map[string]method
	// discovery is rpc.discover's result, built on first use.
	discovery func() (preEncoded, error)
	reg       *registry
	adapters  *adapterSet
	// capacity holds one slot per open session (Options.MaxSessions,
	// MaxMemory).
	capacity *host.Capacity
	// events carries core and plugin events: the plugin registry's bus,
	// or the server's own without one.
	events *events.Bus

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	// maxInFlightBytes is MaxInFlightBytes, smaller in tests of it.
	maxInFlightBytes int

	mu        sync.Mutex
	closed    bool
	nextConn  uint64
	listeners map[net.Listener]struct{}
	live      map[*conn]struct{} // connections being served, for Close
	conns     sync.WaitGroup     // connections being served

	closeOnce sync.Once
	closeErr  error
}

// NewServer returns a server ready to serve connections.
func NewServer(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.Predicates == nil && opts.Plugins != nil {
		opts.Predicates = opts.Plugins
	}
	events := events.New(log)
	if opts.Plugins != nil {
		events = opts.Plugins.Events()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:      opts,
		log:       log,
		reg:       newRegistry(log, events),
		events:    events,
		adapters:  newAdapterSet(),
		capacity:  host.NewCapacity(host.ResolveLimits(opts.MaxSessions, opts.MaxMemory)),
		ctx:       ctx,
		cancel:    cancel,
		listeners: make(map[net.Listener]struct{}),
		live:      make(map[*conn]struct{}),

		maxInFlightBytes: MaxInFlightBytes,
	}
	s.reg.expire = s.expireIdle
	s.methods = s.methodTable()
	s.discovery = sync.OnceValues(s.buildDiscovery)
	return s
}

// ServeConn serves one client on rwc until the client ends the stream, ctx
// is cancelled or the server closes. Requests still running when the client
// ends the stream are finished and answered first, so
// `printf '...' | ptywright serve --stdio` gets its response, unless the
// client is gone entirely: on stdio, when stdout is a pipe whose reader
// closed (or a socket or terminal that hung up), they are cancelled at once
// (docs/protocol.md, "When a connection ends"). When ctx is cancelled or
// the server closes, the requests running are cancelled and answered
// before rwc closes. ServeConn closes rwc. A clean end, and a client that
// hung up, return nil.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser, framing Framing) error {
	if _, err := ParseFraming(string(framing)); err != nil {
		_ = rwc.Close() // Best effort: refused.
		return err
	}
	if !s.addConn() {
		_ = rwc.Close() // Best effort: refused.
		return ErrServerClosed
	}
	defer s.conns.Done()
	return s.serveConn(s.newConn(ctx, rwc, framing))
}

// addConn counts a connection in, unless the server is closed.
func (s *Server) addConn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns.Add(1)
	return true
}

func (s *Server) newConn(ctx context.Context, rwc io.ReadWriteCloser, framing Framing) *conn {
	cctx, cancel := context.WithCancelCause(ctx)
	stopOnClose := context.AfterFunc(s.ctx, func() { cancel(ErrServerClosed) })
	s.mu.Lock()
	s.nextConn++
	id := s.nextConn
	log := s.log.With("conn", id)
	c := &conn{
		srv:    s,
		id:     id,
		log:    log,
		rwc:    rwc,
		reader: framing.Reader(rwc),
		writer: framing.Writer(rwc),
		hangup: hangupProbe(rwc),
		ctx:    cctx,
		cancel: func(cause error) {
			stopOnClose()
			cancel(cause)
		},
		sem:        make(chan struct{}, MaxInFlight),
		held:       newByteBudget(s.maxInFlightBytes),
		out:        make(chan response, MaxInFlight+1),
		idle:       make(chan struct{}),
		writerDone: make(chan struct{}),
		notes:      newNotifier(log, s.reg),
	}
	s.live[c] = struct{}{}
	s.mu.Unlock()
	return c
}

// serveConn serves c and forgets it once it ended.
func (s *Server) serveConn(c *conn) error {
	defer func() {
		s.mu.Lock()
		delete(s.live, c)
		s.mu.Unlock()
	}()
	return c.serve()
}

// Serve accepts connections on l until ctx is cancelled or the server
// closes, serving each with Options.Framing. It closes l when it returns,
// which for a listener from ListenUnix removes the socket file.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = l.Close() // Best effort: refused.
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		_ = l.Close() // Best effort: Close may have closed it already.
	}()
	stop := context.AfterFunc(ctx, func() { _ = l.Close() }) // Best effort: unblocks Accept.
	defer stop()
	framing := s.opts.Framing
	if framing == "" {
		framing = NDJSON
	}
	if _, err := ParseFraming(string(framing)); err != nil {
		return err
	}
	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			switch {
			case s.isClosed():
				return ErrServerClosed
			case ctx.Err() != nil:
				return ctx.Err()
			case isTemporary(err):
				// Out of file descriptors, say: wait and retry, as
				// net/http does.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed; retrying", "err", err, "in", backoff)
				t := time.NewTimer(backoff)
				select {
				case <-t.C:
				case <-ctx.Done():
				case <-s.ctx.Done():
				}
				t.Stop()
				continue
			}
			return fmt.Errorf("rpc: accept: %w", err)
		}
		backoff = 0
		if !s.addConn() {
			_ = nc.Close() // Best effort: refused.
			return ErrServerClosed
		}
		go func() {
			defer s.conns.Done()
			err := s.serveConn(s.newConn(ctx, nc, framing))
			if err != nil && !errors.Is(err, ErrServerClosed) && !errors.Is(err, context.Canceled) {
				s.log.Debug("connection ended", "err", redact(err.Error()))
			}
		}()
	}
}

func isTemporary(err error) bool {
	var ne interface{ Temporary() bool }
	return errors.As(err, &ne) && ne.Temporary()
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops the server: it closes the listeners (removing the socket files
// ListenUnix created), ends every connection, closes every session (SIGTERM,
// grace, SIGKILL, reap) and every adapter, and waits for all of it. It is
// safe to call more than once; later calls return the first result.
//
// Every request a connection has started is answered before its
// connection closes: Close cancels them first (a wait answers -32005 with
// its evidence) and gives them up to closeGrace to finish before it
// closes the sessions, and a connection writes their answers before it
// closes its stream (conn.serve).
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		var errs []error
		for l := range s.listeners {
			if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
		}
		live := make([]*conn, 0, len(s.live))
		for c := range s.live {
			live = append(live, c)
		}
		s.mu.Unlock()
		s.cancel()
		// Cancelled here rather than by the AfterFunc on s.ctx, which runs
		// in a goroutine of its own: a wait must see its cancellation
		// before its session closes, or it answers "session closed".
		for _, c := range live {
			c.cancel(ErrServerClosed)
		}
		grace, stop := context.WithTimeout(context.Background(), closeGrace)
		for _, c := range live {
			select {
			case <-c.idle:
			case <-grace.Done():
			}
		}
		stop()
		// Closing the sessions first ends the adapters' waits, which hold
		// their handles' locks.
		errs = append(errs, s.reg.closeAll())
		for _, a := range s.adapters.closeAll() {
			// Best effort: the session's error was reported above, and
			// closing a Lua state cannot fail.
			_ = a.h.Close()
		}
		s.conns.Wait()
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

var _ io.Closer = (*Server)(nil)

// Stdio joins a reader and a writer, typically os.Stdin and os.Stdout, into
// the stream ServeConn takes. Close closes both if they are io.Closers.
func Stdio(r io.Reader, w io.Writer) io.ReadWriteCloser { return stdio{r, w} }

type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	var errs []error
	if c, ok := s.Reader.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.Writer.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
