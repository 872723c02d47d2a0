package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const serveSynopsis = "serve [--stdio | --socket PATH] [--framing ndjson|lsp] [--plugin MANIFEST]... [--allow-plugin-load]"

const serveDetails = `Serves JSON-RPC 2.0 over stdin/stdout (--stdio) or a local socket
(--socket: a Unix socket path, or a Windows named pipe \\.\pipe\NAME).
Without either it listens on the default per-user socket.
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
	return cfg, false, nil
}

func serveCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, help, err := parseServe(args, stdout)
	if help || err != nil {
		return err
	}
	// A server stops on SIGINT/SIGTERM by cancelling its context, so it can
	// kill its children and remove its socket.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runServe(ctx, cfg, stdin, stdout, stderr)
}

// errServeNotBuilt is what serve returns until the rpc package is wired in.
var errServeNotBuilt = errors.New("serve: not built yet")

// runServe serves JSON-RPC as cfg says until ctx ends or the transport
// closes. stdin and stdout are the transport under cfg.Stdio; stderr takes
// diagnostics.
//
// TODO(lead): wire in package ptywright/rpc here: load cfg.Plugins, build
// the server (cfg.AllowPluginLoad), pick the framer (cfg.Framing) and serve
// on stdio or on cfg.Socket (the default per-user socket when empty).
func runServe(ctx context.Context, cfg serveConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	return errServeNotBuilt
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
