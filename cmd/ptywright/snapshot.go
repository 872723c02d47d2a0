package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"ptywright"
	"ptywright/svg"
)

const snapshotSynopsis = "snapshot [--socket PATH] (ID [--json] | --session ID | --adapter ID [--explain]) [--svg | --cells]"

const snapshotDetails = `"ptywright snapshot ID" prints session ID's screen as plain text, or the
session.snapshot result as it came (without cells unless --cells) with
--json, or an SVG picture with --svg; it exits as the other client commands
do: 0, or 2 for any error.

With --session or --adapter instead, it prints the screen of one of the
server's sessions (session.snapshot) or adapters (adapter.snapshot) as
JSON, without the per-cell grid unless --cells, or as an SVG picture with
--svg.
Secrets are redacted, as the server redacts every snapshot.

With --adapter, --explain adds "explanation" to the JSON: why the adapter's
plugin classifies the screen as it does (adapter.explain: the rule that
fired, the rows it matched, the evidence, what it considered and rejected,
the parser version and anomalies).

Without --socket it connects to $PTYWRIGHT_SOCKET, else the default
per-user socket; an error exits 1.
`

// snapshotTimeout bounds the whole exchange with the server.
const snapshotTimeout = 30 * time.Second

// snapshotConfig is a validated `snapshot` command line.
type snapshotConfig struct {
	// clientFlags are --socket ("" means the default) and --json.
	clientFlags
	// ByID is the "snapshot ID" form: plain text, the client's exit codes.
	ByID bool
	// Session or Adapter (exactly one) names the screen to read.
	Session, Adapter string
	// SVG renders the screen as SVG; Cells keeps the cell grid in the JSON.
	SVG, Cells bool
	// Explain adds the adapter's explanation of its classification.
	Explain bool
}

func snapshotFlags(cfg *snapshotConfig) *flag.FlagSet {
	fs := newFlagSet("snapshot")
	cfg.clientFlags.bind(fs)
	fs.StringVar(&cfg.Session, "session", "", "read the session `ID` (s1, s2, ...)")
	fs.StringVar(&cfg.Adapter, "adapter", "", "read the adapter `ID`'s screen (e1, e2, ...)")
	fs.BoolVar(&cfg.SVG, "svg", false, "print an SVG picture of the screen instead of JSON")
	fs.BoolVar(&cfg.Cells, "cells", false, "keep the per-cell grid (text, colours, attributes) in the JSON")
	fs.BoolVar(&cfg.Explain, "explain", false, "with --adapter: add the plugin's explanation of its classification (rule, evidence, considered states)")
	return fs
}

func parseSnapshot(args []string, stdout io.Writer) (cfg snapshotConfig, help bool, err error) {
	fs := snapshotFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return snapshotConfig{}, help, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(pos) > 0 && !set["session"] && !set["adapter"] {
		if cfg.Session, err = oneID("snapshot", "session ID", pos); err != nil {
			return snapshotConfig{}, false, err
		}
		cfg.ByID = true
	} else if len(pos) > 0 {
		return snapshotConfig{}, false, usagef("snapshot", "unexpected argument %q", pos[0])
	}
	switch {
	case set["socket"] && cfg.Socket == "":
		return snapshotConfig{}, false, usagef("snapshot", "--socket: path must not be empty")
	case cfg.JSON && cfg.SVG:
		return snapshotConfig{}, false, usagef("snapshot", "--json and --svg are mutually exclusive")
	case (cfg.Session == "") == (cfg.Adapter == ""):
		return snapshotConfig{}, false, usagef("snapshot", "exactly one of --session or --adapter is required")
	case cfg.Explain && cfg.Adapter == "":
		return snapshotConfig{}, false, usagef("snapshot", "--explain needs --adapter (a session has no classifier)")
	case cfg.Explain && cfg.SVG:
		return snapshotConfig{}, false, usagef("snapshot", "--explain and --svg are mutually exclusive (the explanation is JSON)")
	case cfg.SVG && cfg.Cells:
		return snapshotConfig{}, false, usagef("snapshot", "--svg and --cells are mutually exclusive (the picture is drawn from the cells)")
	}
	return cfg, false, nil
}

func snapshotCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, help, err := parseSnapshot(args, stdout)
	if help || err != nil {
		return err
	}
	if cfg.ByID {
		return snapshotByID(ctx, cfg, stdout, stderr)
	}
	path, err := resolveSocket(cfg.Socket)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	method, params := "session.snapshot", map[string]any{"session": cfg.Session}
	if cfg.Adapter != "" {
		method, params = "adapter.snapshot", map[string]any{"adapter": cfg.Adapter}
	}
	snapParams := params
	if !cfg.Cells && !cfg.SVG {
		// The server leaves the cells out rather than this dropping them:
		// 250 MB of JSON for a 1000x1000 screen.
		snapParams = map[string]any{"cells": false}
		for k, v := range params {
			snapParams[k] = v
		}
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	res, err := call(ctx, path, method, snapParams)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if cfg.SVG {
		var snap ptywright.ScreenSnapshot
		if err := json.Unmarshal(res, &snap); err != nil {
			return fmt.Errorf("snapshot: decoding the %s result: %w", method, err)
		}
		if err := svg.Render(stdout, snap, svg.Options{}); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		return nil
	}
	if !cfg.Cells || cfg.Explain {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(res, &obj); err != nil {
			return fmt.Errorf("snapshot: decoding the %s result: %w", method, err)
		}
		if !cfg.Cells {
			obj["cells"] = json.RawMessage("[]")
		}
		if cfg.Explain {
			ex, err := call(ctx, path, "adapter.explain", params)
			if err != nil {
				return fmt.Errorf("snapshot: %w", err)
			}
			var x struct {
				Explanation json.RawMessage `json:"explanation"`
			}
			if err := json.Unmarshal(ex, &x); err != nil {
				return fmt.Errorf("snapshot: decoding the adapter.explain result: %w", err)
			}
			obj["explanation"] = x.Explanation
		}
		if res, err = json.Marshal(obj); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, res, "", "  "); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	out.WriteByte('\n')
	if _, err := out.WriteTo(stdout); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}
