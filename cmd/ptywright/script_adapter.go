package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"ptywright"
)

const adapterSynopsis = "adapter start|send|turn|state|close [flags] [args]"

const adapterDetails = `Drives a TUI on a running "ptywright serve" through a plugin (an
adapter): the plugin reads the screen as a state and turns intents into
keys.

  adapter start PLUGIN [--rows N] [--cols N] [--env KEY=VALUE]... [--cwd DIR] [-- PROGRAM [ARGS...]]
        start PLUGIN's adapter (on its manifest's program unless one is
        given) and print the adapter's id
  adapter send ID INTENT [--param KEY=VALUE]... [--params JSON] [--timeout DURATION]
        send an intent and print the receipt's effect and the state after
        it; exit 1 when the program did not take it (ignored, not_sent)
  adapter turn ID INTENT [--param KEY=VALUE]... [--params JSON] [--timeout DURATION]
        send an intent and wait for the turn to end (the plugin's turn
        matcher); print the state at the end; exit 1 on a timeout or when
        the program did not take the intent
  adapter state ID
        print the adapter's state name (the whole state with --json)
  adapter close ID
        close the adapter and its session

"ptywright adapter SUBCOMMAND --help" shows a subcommand's flags.

` + clientDetails

// adapterCommands are the adapter subcommands, for help and completions.
func adapterCommands() []command {
	return []command{
		{"adapter start", "start a plugin's adapter on a served session and print its id", "adapter start [--socket PATH] [--json] PLUGIN [--rows N] [--cols N] [--env KEY=VALUE]... [--cwd DIR] [-- PROGRAM [ARGS...]]", clientDetails, func() *flag.FlagSet { return adapterStartFlags(new(startConfig)) }},
		{"adapter send", "send an intent to an adapter", "adapter send [--socket PATH] [--json] ID INTENT [--param KEY=VALUE]... [--params JSON] [--timeout DURATION]", clientDetails, func() *flag.FlagSet { return intentFlags("adapter send", new(intentConfig)) }},
		{"adapter turn", "send an intent to an adapter and wait for the turn to end", "adapter turn [--socket PATH] [--json] ID INTENT [--param KEY=VALUE]... [--params JSON] [--timeout DURATION]", clientDetails, func() *flag.FlagSet { return intentFlags("adapter turn", new(intentConfig)) }},
		{"adapter state", "print an adapter's state", "adapter state [--socket PATH] [--json] ID", clientDetails, func() *flag.FlagSet { return clientOnlyFlags("adapter state", new(clientFlags)) }},
		{"adapter close", "close an adapter and its session", "adapter close [--socket PATH] [--json] ID", clientDetails, func() *flag.FlagSet { return clientOnlyFlags("adapter close", new(clientFlags)) }},
	}
}

// clientOnlyFlags is a flag set with only --socket and --json.
func clientOnlyFlags(name string, cfg *clientFlags) *flag.FlagSet {
	fs := newFlagSet(name)
	cfg.bind(fs)
	return fs
}

func adapterCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("adapter", "subcommand required: start, send, turn, state or close")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		c, _ := lookupCommand("adapter")
		printUsage(stdout, c)
		return nil
	case "start":
		return adapterStart(ctx, rest, stdout, stderr)
	case "send", "turn":
		return adapterIntent(ctx, sub, rest, stdout, stderr)
	case "state", "close":
		var cfg clientFlags
		name := "adapter " + sub
		pos, help, err := parseClientArgs(clientOnlyFlags(name, &cfg), rest, stdout)
		if help || err != nil {
			return err
		}
		id, err := oneID(name, "adapter ID", pos)
		if err != nil {
			return err
		}
		c, err := newClient(name, cfg, stdout, stderr)
		if err != nil {
			return err
		}
		if sub == "close" {
			return c.closeCall(ctx, "adapter.close", map[string]any{"adapter": id})
		}
		return c.adapterState(ctx, id)
	}
	return usagef("adapter", "unknown subcommand %q: want start, send, turn, state or close", sub)
}

func adapterStartFlags(cfg *startConfig) *flag.FlagSet {
	fs := startFlags(cfg)
	adapter := newFlagSet("adapter start")
	fs.VisitAll(func(f *flag.Flag) { adapter.Var(f.Value, f.Name, f.Usage) })
	return adapter
}

func adapterStart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const name = "adapter start"
	var cfg startConfig
	fs := adapterStartFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] == "" {
		return usagef(name, "plugin name required")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"rows", cfg.Rows}, {"cols", cfg.Cols}} {
		if isSet(fs, f.name) && (f.v < 1 || f.v > ptywright.MaxSizeCells) {
			return usagef(name, "--%s: must be between 1 and %d, got %d", f.name, ptywright.MaxSizeCells, f.v)
		}
	}
	params := map[string]any{"plugin": pos[0]}
	if len(pos) > 1 {
		if pos[1] == "" {
			return usagef(name, "program must not be empty")
		}
		params["program"], params["args"] = pos[1], pos[2:]
	}
	if cfg.Cwd == "" {
		if cfg.Cwd, err = os.Getwd(); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w (give --cwd)", name, err)}
		}
	}
	params["cwd"] = cfg.Cwd
	if cfg.Rows > 0 {
		params["rows"] = cfg.Rows
	}
	if cfg.Cols > 0 {
		params["cols"] = cfg.Cols
	}
	if len(cfg.Env) > 0 {
		params["env"] = cfg.Env.Map()
	}
	c, err := newClient(name, cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, "adapter.start", params)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct{ Adapter string }
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed("adapter.start", err)
	}
	_, err = fmt.Fprintln(stdout, out.Adapter)
	return err
}

// intentConfig is a validated `adapter send` or `adapter turn` line.
type intentConfig struct {
	clientFlags
	Params  envList
	JSONArg string
	Timeout time.Duration
}

func intentFlags(name string, cfg *intentConfig) *flag.FlagSet {
	fs := newFlagSet(name)
	cfg.clientFlags.bind(fs)
	fs.Var(&cfg.Params, "param", "set the intent's param `KEY=VALUE`, a string (repeatable)")
	fs.StringVar(&cfg.JSONArg, "params", "", "the intent's params as a JSON `OBJECT` (--param adds to it)")
	def := 10 * time.Second
	if name == "adapter turn" {
		def = 120 * time.Second
	}
	fs.DurationVar(&cfg.Timeout, "timeout", def, "give up after `DURATION`")
	return fs
}

func adapterIntent(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	name := "adapter " + sub
	var cfg intentConfig
	fs := intentFlags(name, &cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	switch {
	case len(pos) < 2:
		return usagef(name, "adapter ID and INTENT required")
	case len(pos) > 2:
		return usagef(name, "unexpected argument %q", pos[2])
	case cfg.Timeout < 0:
		return usagef(name, "--timeout must not be negative")
	}
	params := map[string]any{}
	if cfg.JSONArg != "" {
		if err := json.Unmarshal([]byte(cfg.JSONArg), &params); err != nil || params == nil {
			return usagef(name, "--params: want a JSON object, got %q", cfg.JSONArg)
		}
	}
	for k, v := range cfg.Params.Map() {
		params[k] = v
	}
	c, err := newClient(name, cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	send := map[string]any{"intent": pos[1], "params": params}
	method, req := "adapter.send", map[string]any{"adapter": pos[0], "intent": pos[1], "params": params, "timeout_ms": cfg.Timeout.Milliseconds()}
	if sub == "turn" {
		method, req = "adapter.turn", map[string]any{"adapter": pos[0], "send": send, "wait": map[string]any{"timeout_ms": cfg.Timeout.Milliseconds()}}
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout+waitMargin)
	defer cancel()
	res, err := c.do(ctx, method, req)
	if err != nil {
		return c.noMatch(err)
	}
	var out struct {
		State   struct{ State string } `json:"state"`
		Matched json.RawMessage        `json:"matched"`
		Receipt struct {
			Effect string `json:"effect"`
			Reason string `json:"reason"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed(method, err)
	}
	if c.json {
		err = c.printJSON(res)
	} else if sub == "send" {
		_, err = fmt.Fprintf(stdout, "%s\t%s\n", out.Receipt.Effect, out.State.State)
	} else {
		_, err = fmt.Fprintln(stdout, out.State.State)
	}
	if err != nil {
		return err
	}
	if effect := out.Receipt.Effect; effect == "ignored" || effect == "not_sent" {
		why := ""
		if out.Receipt.Reason != "" {
			why = ": " + out.Receipt.Reason
		}
		return &exitError{code: exitNoMatch, err: fmt.Errorf("%s: the program did not take %s (%s%s)", name, pos[1], effect, strings.TrimSpace(redactText(why)))}
	}
	return nil
}

// adapterState prints an adapter's state name, or the result with --json.
func (c *client) adapterState(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, "adapter.state", map[string]any{"adapter": id})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct {
		State struct{ State string } `json:"state"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed("adapter.state", err)
	}
	_, err = fmt.Fprintln(c.stdout, out.State.State)
	return err
}
