package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"ptywright"
	"ptywright/svg"
)

const listSynopsis = "list [--socket PATH] [--json]"

const listDetails = `Lists the server's sessions (session.list), one a line in creation order:
the id, then the adapter that owns it, if any.

` + clientDetails

func listFlags(cfg *clientFlags) *flag.FlagSet {
	fs := newFlagSet("list")
	cfg.bind(fs)
	return fs
}

func listCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg clientFlags
	fs := listFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list", "unexpected argument %q", pos[0])
	}
	c, err := newClient("list", cfg, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, "session.list", map[string]any{"details": true})
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct {
		Details []struct {
			Session, Adapter string
		}
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed("session.list", err)
	}
	for _, d := range out.Details {
		if d.Adapter != "" {
			fmt.Fprintf(stdout, "%s\tadapter %s\n", d.Session, d.Adapter)
		} else {
			fmt.Fprintln(stdout, d.Session)
		}
	}
	return nil
}

const closeSynopsis = "close [--socket PATH] [--json] ID"

const closeDetails = `Closes session ID (session.close): ends its program (SIGTERM to its
process group, SIGKILL after a grace period) and forgets the session.
Prints how the program ended. An adapter's session closes with "ptywright
adapter close".

` + clientDetails

func closeFlags(cfg *clientFlags) *flag.FlagSet {
	fs := newFlagSet("close")
	cfg.bind(fs)
	return fs
}

func closeCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg clientFlags
	fs := closeFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	id, err := oneID("close", "session ID", pos)
	if err != nil {
		return err
	}
	c, err := newClient("close", cfg, stdout, stderr)
	if err != nil {
		return err
	}
	return c.closeCall(ctx, "session.close", map[string]any{"session": id})
}

// closeCall closes a session or an adapter and prints how its program
// ended.
func (c *client) closeCall(ctx context.Context, method string, params any) error {
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, method, params)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct {
		Exit *ptywright.ExitStatus `json:"exit"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed(method, err)
	}
	switch {
	case out.Exit == nil:
		_, err = fmt.Fprintln(c.stdout, "closed")
	case out.Exit.Signal != "":
		_, err = fmt.Fprintf(c.stdout, "closed: killed by signal %s\n", out.Exit.Signal)
	default:
		_, err = fmt.Fprintf(c.stdout, "closed: exit code %d\n", out.Exit.Code)
	}
	return err
}

// snapshotByID is "snapshot ID": session ID's screen as plain text, as the
// result as it came with --json, or as SVG, with the client's exit codes.
func snapshotByID(ctx context.Context, cfg snapshotConfig, stdout, stderr io.Writer) error {
	c, err := newClient("snapshot", cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	params := map[string]any{"session": cfg.Session}
	if !cfg.Cells && !cfg.SVG {
		params["cells"] = false
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, "session.snapshot", params)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var snap ptywright.ScreenSnapshot
	if err := json.Unmarshal(res, &snap); err != nil {
		return c.malformed("session.snapshot", err)
	}
	if cfg.SVG {
		if err := svg.Render(stdout, snap, svg.Options{}); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("snapshot: %w", err)}
		}
		return nil
	}
	_, err = fmt.Fprintln(stdout, snap.PlainText)
	return err
}
