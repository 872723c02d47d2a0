package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/host"
	"ptywright/plugins"
)

// Options configure a Server.
type Options struct {
	// Plugins is the plugin registry the adapter tools run on; nil leaves
	// them out (only the session tools are offered). The server never
	// closes it: it belongs to the caller.
	Plugins *plugins.Registry
	// Predicates decides lua matchers inside adapters' wait matchers. Nil
	// means Plugins.
	Predicates contract.PredicateRegistry
	// Logger receives diagnostics. Nil means slog.Default(). It must not
	// write to the protocol stream (stdout under stdio).
	Logger *slog.Logger
	// Version is what the server reports to clients; "" means "devel".
	Version string
	// ProgressInterval is how often a long wait reports progress to a
	// client that asked for it (by sending a progress token); 0 means one
	// second.
	ProgressInterval time.Duration
	// MaxSessions, MaxMemory and MaxCells are the caps of rpc.Options of
	// the same names (the CLI's --max-sessions, --max-memory,
	// --max-cells), shared by every client of the server: past them
	// session_start and adapter_start fail with a tool error saying which
	// limit, and nothing running is touched.
	MaxSessions int
	MaxMemory   int64
	MaxCells    int
	// Audit, when set, records every answer to a dialog an adapter of
	// this server delivers or refuses (the CLI's --audit), decided_by
	// "mcp client". The server does not close it.
	Audit *ptywright.AuditLog
	// Policy decides the permission dialogs of every adapter (the CLI's
	// --policy): see ptywright.Policy. Nil decides none.
	Policy *ptywright.Policy
}

// DefaultInputTimeout bounds session_send: input to a program that stopped
// reading fails after it, saying how many bytes went in.
const DefaultInputTimeout = 10 * time.Second

// DefaultWaitTimeout is session_wait's timeout when timeout_ms is omitted.
const DefaultWaitTimeout = 30 * time.Second

// MaxWaitTimeout bounds timeout_ms: MCP clients give up on a tool call long
// before, and a larger value is a mistake.
const MaxWaitTimeout = time.Hour

// Server serves ptywright's tools to MCP clients. Each call to Serve serves
// one client, which owns the sessions and adapters it starts.
type Server struct {
	opts     Options
	log      *slog.Logger
	capacity *host.Capacity
}

// New returns a server. It holds no resources until Serve.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = time.Second
	}
	if opts.Predicates == nil && opts.Plugins != nil {
		opts.Predicates = opts.Plugins
	}
	return &Server{opts: opts, log: opts.Logger, capacity: host.NewCapacity(host.ResolveLimits(opts.MaxSessions, opts.MaxMemory))}
}

// instructions tell the client's model what the server is for.
const instructions = `ptywright runs terminal programs (shells, REPLs, editors, agent CLIs) on a real pseudo-terminal and shows you their screen as text.
Typical loop: session_start a program, session_send text and/or keys, session_wait for the text you expect (or for the screen to settle with stable_ms), read session_snapshot, and session_close when done.
For agent CLIs with a plugin (see plugin_describe), adapter_start/adapter_send/adapter_turn drive them by intent.
Secrets on screen are redacted. Everything you start is closed when you disconnect.`

// Serve serves one client over t until the client disconnects or ctx
// ends. Then it closes every session and adapter the client started,
// reaping their children, before it returns. A client that disconnects is
// not an error.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	c := newClient(s)
	srv := mcp.NewServer(&mcp.Implementation{Name: "ptywright", Title: "ptywright", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// No Logger: the SDK's own lines (an ERROR for every cancelled
		// Run) are noise; ours say what matters.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	c.addSessionTools(srv)
	c.addMouseTool(srv)
	c.addMoreSessionTools(srv)
	if s.opts.Plugins != nil {
		c.addAdapterTools(srv)
	}
	err := srv.Run(ctx, t)
	closeErr := c.close()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return fmt.Errorf("mcp: %w", err)
	}
	if closeErr != nil {
		return fmt.Errorf("mcp: closing the client's sessions: %w", closeErr)
	}
	return nil
}
