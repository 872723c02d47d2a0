package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"ptywright"
	"ptywright/plugins"
	"ptywright/rpc"
)

const serveSynopsis = "serve [--stdio | --socket PATH] [--framing ndjson|lsp] [--plugin MANIFEST]... [--allow-plugin-load] [--engine vtcore|xvt] [--max-sessions N] [--max-memory BYTES] [--max-cells N] [--log-level LEVEL]"

const serveDetails = `Serves JSON-RPC 2.0 over stdin/stdout (--stdio) or a local socket
(--socket: a Unix socket path, or a Windows named pipe \\.\pipe\NAME).
Without either it listens on $PTYWRIGHT_SOCKET, else on the default
per-user socket ($PTYWRIGHT_HOME/socket, else ~/.ptywright/socket), where
the client commands (start, send, wait, ...) connect by default.
`

// framing is how JSON-RPC messages are delimited on the wire.
type framing string

const (
	// framingNDJSON is one compact JSON message per line.
	framingNDJSON framing = "ndjson"
	// framingLSP is "Content-Length: N\r\n\r\n" followed by N bytes of JSON.
	framingLSP framing = "lsp"
)

// serveConfig is a validated `serve` command line.
type serveConfig struct {
	// Stdio serves a single client over stdin and stdout.
	Stdio bool
	// Socket is the local IPC path: a Unix socket, or a Windows named pipe
	// such as \\.\pipe\ptywright. Empty with Stdio false means the default
	// per-user socket, which the server chooses.
	Socket string
	// Framing delimits messages; ndjson unless --framing says otherwise.
	Framing framing
	// Plugins are the --plugin manifest paths in the order given, as typed
	// (the server resolves and validates them).
	Plugins []string
	// AllowPluginLoad enables the plugin.load and plugin.unload methods;
	// without it they are denied with server_did_not_grant_plugin_load.
	AllowPluginLoad bool
	// Engine is the terminal emulator of the sessions clients create
	// without naming one.
	Engine string
	// LogLevel is the least level logged on stderr (--log-level, else
	// $PTYWRIGHT_LOG, else info).
	LogLevel logLevel
	// Limits are --max-sessions, --max-memory and --max-cells.
	Limits limitFlags
	// Audit is the --audit file: every dialog answered, one JSON line.
	Audit string
	// Policy is the --policy file: the rules that decide permission
	// dialogs (TOML).
	Policy string
}

// serveFlags binds the serve flags to cfg.
func serveFlags(cfg *serveConfig) *flag.FlagSet {
	fs := newFlagSet("serve")
	cfg.Framing = framingNDJSON
	fs.BoolVar(&cfg.Stdio, "stdio", false, "serve one client over stdin/stdout")
	fs.StringVar(&cfg.Socket, "socket", "", "serve on the local socket or named pipe at `PATH`")
	fs.Var((*framingValue)(&cfg.Framing), "framing", "message framing: `ndjson|lsp`, default ndjson")
	fs.Var((*pluginList)(&cfg.Plugins), "plugin", "load the plugin whose manifest is at `MANIFEST` (repeatable)")
	fs.BoolVar(&cfg.AllowPluginLoad, "allow-plugin-load", false, "let clients load and unload plugins (plugin.load, plugin.unload)")
	fs.StringVar(&cfg.Engine, "engine", "", "terminal emulator of the sessions created without one: `vtcore|xvt`, default vtcore")
	fs.StringVar(&cfg.Audit, "audit", "", auditUsage)
	fs.StringVar(&cfg.Policy, "policy", "", policyUsage)
	cfg.Limits.bind(fs)
	fs.Var(&cfg.LogLevel, "log-level", logLevelUsage)
	return fs
}

// parseServe parses and validates the serve command line; help is true when
// --help was printed instead.
func parseServe(args []string, stdout io.Writer) (cfg serveConfig, help bool, err error) {
	fs := serveFlags(&cfg)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return serveConfig{}, help, err
	}
	if fs.NArg() > 0 {
		return serveConfig{}, false, usagef("serve", "unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.Stdio && set["socket"] {
		return serveConfig{}, false, usagef("serve", "--stdio and --socket are mutually exclusive")
	}
	if set["socket"] && cfg.Socket == "" {
		return serveConfig{}, false, usagef("serve", "--socket: path must not be empty")
	}
	if err := ptywright.Engine(cfg.Engine).Validate(); err != nil {
		var fe *ptywright.FieldError
		if errors.As(err, &fe) {
			return serveConfig{}, false, usagef("serve", "--engine: %s", fe.Reason)
		}
		return serveConfig{}, false, usagef("serve", "--engine: %v", err)
	}
	if err := cfg.Limits.check("serve"); err != nil {
		return serveConfig{}, false, err
	}
	if err := resolveLogLevel("serve", set["log-level"], &cfg.LogLevel); err != nil {
		return serveConfig{}, false, err
	}
	return cfg, false, nil
}

func serveCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, help, err := parseServe(args, stdout)
	if help || err != nil {
		return err
	}
	// A server stops on SIGINT, SIGTERM and SIGHUP by cancelling its
	// context, so it can kill its children and remove its socket.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	defer catchSIGPIPE()()
	return runServe(ctx, cfg, stdin, stdout, stderr)
}

// catchSIGPIPE keeps a client that goes while the server writes to stdout
// (or stderr) from killing the server: Go's default for a broken pipe on
// descriptors 1 and 2 is to die of SIGPIPE, which would skip Close and
// leave the children behind. Caught, the write fails with EPIPE, the
// connection ends as any whose peer is gone, and Close reaps the children.
// It returns the function that stops catching it.
func catchSIGPIPE() func() {
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return func() { signal.Stop(pipe) }
}

// runServe serves JSON-RPC as cfg says until ctx ends or the transport
// closes. stdin and stdout are the transport under cfg.Stdio; stderr takes
// diagnostics, redacted. Every --plugin manifest is loaded first: one that
// fails is a startup error naming its file. On the way out the server is
// closed, which removes the socket and reaps every child.
func runServe(ctx context.Context, cfg serveConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	log := newLogger(stderr, cfg.LogLevel)
	// Plugins log (ptywright.log, handler and cleanup failures) through the
	// same redacted handler, with plugin=<name>.
	plugins, err := plugins.New(plugins.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer plugins.Close() // After the server: adapters' instances are their own.
	for _, path := range cfg.Plugins {
		m, err := plugins.Load(path)
		if err != nil {
			return fmt.Errorf("serve: --plugin %s: %w", path, err)
		}
		log.Info("plugin loaded", "plugin", m.Name, "manifest", path)
	}
	policy, err := loadPolicy("serve", cfg.Policy)
	if err != nil {
		return err
	}
	audit, err := openAudit("serve", cfg.Audit)
	if err != nil {
		return err
	}
	defer closeAudit(audit, log) // After the server, whose adapters write to it.
	srv := rpc.NewServer(rpc.Options{
		Audit:           audit,
		Policy:          policy,
		Plugins:         plugins,
		AllowPluginLoad: cfg.AllowPluginLoad,
		Logger:          log,
		Version:         version,
		Framing:         rpc.Framing(cfg.Framing),
		Engine:          ptywright.Engine(cfg.Engine),
		MaxSessions:     cfg.Limits.MaxSessions,
		MaxMemory:       int64(cfg.Limits.MaxMemory),
		MaxCells:        cfg.Limits.MaxCells,
	})
	defer srv.Close() // Closed below; this covers a panic.

	if cfg.Stdio {
		err = srv.ServeConn(ctx, rpc.Stdio(interruptible(stdin), stdout), rpc.Framing(cfg.Framing))
	} else {
		var path string
		if path, err = resolveSocket(cfg.Socket); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		var l net.Listener
		if l, err = rpc.ListenUnix(path); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		log.Info("listening", "socket", path, "framing", string(cfg.Framing))
		err = srv.Serve(ctx, l) // Closing l on the way out removes the socket.
	}
	if ctx.Err() != nil {
		log.Info("stopping", "reason", context.Cause(ctx).Error())
	}
	closeErr := srv.Close()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, rpc.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	if closeErr != nil {
		return fmt.Errorf("serve: close: %w", closeErr)
	}
	return nil
}

// interruptible returns a reader of r whose reads a Close can interrupt, so
// the server can stop while nothing arrives on stdin: a read of a blocking
// file (a terminal, a pipe) cannot otherwise be interrupted. The copying
// goroutine ends with r's stream, or with the process.
func interruptible(r io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err) // nil: the reader sees EOF.
	}()
	return pr
}

// framingValue is a flag.Value accepting only the known framings.
type framingValue framing

func (v *framingValue) String() string { return string(*v) }

func (v *framingValue) Set(s string) error {
	switch f := framing(s); f {
	case framingNDJSON, framingLSP:
		*v = framingValue(f)
		return nil
	}
	return fmt.Errorf("must be %s or %s", framingNDJSON, framingLSP)
}

// pluginList is a repeatable flag.Value collecting manifest paths.
type pluginList []string

func (l *pluginList) String() string { return strings.Join(*l, ",") }

func (l *pluginList) Set(s string) error {
	if s == "" {
		return errors.New("manifest path must not be empty")
	}
	*l = append(*l, s)
	return nil
}
