package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"ptywright/mcpserver"
	"ptywright/plugins"
)

const mcpSynopsis = "mcp [--plugin MANIFEST]... [--max-sessions N] [--max-memory BYTES] [--max-cells N] [--log-level LEVEL]"

const mcpDetails = `Serves the Model Context Protocol over stdin/stdout, for agent clients
(Claude Code, Codex, editors) to drive terminal programs through tools:
session_start, session_send, session_wait, session_snapshot, session_read,
session_resize, session_mouse, session_list, session_close, adapter_start,
adapter_state, adapter_send, adapter_turn, adapter_close and plugin_describe.
Everything a client starts is closed when it disconnects.

  Claude Code: claude mcp add ptywright -- ptywright mcp
  Codex:       [mcp_servers.ptywright] command = "ptywright", args = ["mcp"]
`

// mcpConfig is a validated `mcp` command line.
type mcpConfig struct {
	// Plugins are the --plugin manifest paths in the order given.
	Plugins []string
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

func mcpFlags(cfg *mcpConfig) *flag.FlagSet {
	fs := newFlagSet("mcp")
	fs.Var((*pluginList)(&cfg.Plugins), "plugin", "load the plugin whose manifest is at `MANIFEST` (repeatable)")
	fs.StringVar(&cfg.Audit, "audit", "", auditUsage)
	fs.StringVar(&cfg.Policy, "policy", "", policyUsage)
	cfg.Limits.bind(fs)
	fs.Var(&cfg.LogLevel, "log-level", logLevelUsage)
	return fs
}

func parseMCP(args []string, stdout io.Writer) (cfg mcpConfig, help bool, err error) {
	fs := mcpFlags(&cfg)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return mcpConfig{}, help, err
	}
	if fs.NArg() > 0 {
		return mcpConfig{}, false, usagef("mcp", "unexpected argument %q", fs.Arg(0))
	}
	if err := cfg.Limits.check("mcp"); err != nil {
		return mcpConfig{}, false, err
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "log-level" })
	if err := resolveLogLevel("mcp", set, &cfg.LogLevel); err != nil {
		return mcpConfig{}, false, err
	}
	return cfg, false, nil
}

func mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, help, err := parseMCP(args, stdout)
	if help || err != nil {
		return err
	}
	// SIGINT, SIGTERM and SIGHUP cancel the context, so the server closes
	// every session and reaps its child before exiting.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	defer catchSIGPIPE()()
	return runMCP(ctx, cfg, stdin, stdout, stderr)
}

// runMCP serves one MCP client on stdin and stdout until it disconnects or
// ctx ends; stderr takes diagnostics, redacted.
func runMCP(ctx context.Context, cfg mcpConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	log := newLogger(stderr, cfg.LogLevel)
	plugins, err := plugins.New(plugins.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	defer plugins.Close() // After the server, which closes the adapters.
	for _, path := range cfg.Plugins {
		m, err := plugins.Load(path)
		if err != nil {
			return fmt.Errorf("mcp: --plugin %s: %w", path, err)
		}
		log.Info("plugin loaded", "plugin", m.Name, "manifest", path)
	}
	policy, err := loadPolicy("mcp", cfg.Policy)
	if err != nil {
		return err
	}
	audit, err := openAudit("mcp", cfg.Audit)
	if err != nil {
		return err
	}
	defer closeAudit(audit, log) // After the server, whose adapters write to it.
	srv := mcpserver.New(mcpserver.Options{
		Audit:   audit,
		Policy:  policy,
		Plugins: plugins, Logger: log, Version: version,
		MaxSessions: cfg.Limits.MaxSessions, MaxMemory: int64(cfg.Limits.MaxMemory), MaxCells: cfg.Limits.MaxCells,
	})
	// Lines that are no MCP message are answered and skipped, not the
	// end of the connection and of every session it started.
	t := &mcpserver.IOTransport{Reader: interruptible(stdin), Writer: nopWriteCloser{stdout}, Logger: log}
	return srv.Serve(ctx, t)
}

// nopWriteCloser keeps the transport from closing stdout, which belongs
// to main, not to one connection.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
