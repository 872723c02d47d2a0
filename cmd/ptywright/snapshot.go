package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	"ptywright"
	"ptywright/rpc"
	"ptywright/svg"
)

const snapshotSynopsis = "snapshot [--socket PATH] (--session ID | --adapter ID [--explain]) [--svg | --cells]"

const snapshotDetails = `Connects to a running "ptywright serve" and prints the screen of one of
its sessions (session.snapshot) or adapters (adapter.snapshot) as JSON,
without the per-cell grid unless --cells, or as an SVG picture with --svg.
Secrets are redacted, as the server redacts every snapshot.

With --adapter, --explain adds "explanation" to the JSON: why the adapter's
plugin classifies the screen as it does (adapter.explain: the rule that
fired, the rows it matched, the evidence, what it considered and rejected,
the parser version and anomalies).

Without --socket it connects to the default per-user socket.
`

// snapshotTimeout bounds the whole exchange with the server.
const snapshotTimeout = 30 * time.Second

// snapshotConfig is a validated `snapshot` command line.
type snapshotConfig struct {
	// Socket is the server's socket; "" means the default per-user socket.
	Socket string
	// Session or Adapter (exactly one) names the screen to read.
	Session, Adapter string
	// SVG renders the screen as SVG; Cells keeps the cell grid in the JSON.
	SVG, Cells bool
	// Explain adds the adapter's explanation of its classification.
	Explain bool
}

func snapshotFlags(cfg *snapshotConfig) *flag.FlagSet {
	fs := newFlagSet("snapshot")
	fs.StringVar(&cfg.Socket, "socket", "", "connect to the server's socket at `PATH`; default: the per-user socket")
	fs.StringVar(&cfg.Session, "session", "", "read the session `ID` (s1, s2, ...)")
	fs.StringVar(&cfg.Adapter, "adapter", "", "read the adapter `ID`'s screen (e1, e2, ...)")
	fs.BoolVar(&cfg.SVG, "svg", false, "print an SVG picture of the screen instead of JSON")
	fs.BoolVar(&cfg.Cells, "cells", false, "keep the per-cell grid (text, colours, attributes) in the JSON")
	fs.BoolVar(&cfg.Explain, "explain", false, "with --adapter: add the plugin's explanation of its classification (rule, evidence, considered states)")
	return fs
}

func parseSnapshot(args []string, stdout io.Writer) (cfg snapshotConfig, help bool, err error) {
	fs := snapshotFlags(&cfg)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return snapshotConfig{}, help, err
	}
	if fs.NArg() > 0 {
		return snapshotConfig{}, false, usagef("snapshot", "unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["socket"] && cfg.Socket == "":
		return snapshotConfig{}, false, usagef("snapshot", "--socket: path must not be empty")
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

func snapshotCommand(ctx context.Context, args []string, stdout io.Writer) error {
	cfg, help, err := parseSnapshot(args, stdout)
	if help || err != nil {
		return err
	}
	path := cfg.Socket
	if path == "" {
		if path, err = rpc.DefaultSocketPath(); err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
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

// call makes one JSON-RPC call on the server's socket and returns its
// result; an error response is returned as the *rpc.Error.
func call(ctx context.Context, socket, method string, params any) (json.RawMessage, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w (is \"ptywright serve\" running there?)", err)
	}
	defer nc.Close() // Best effort: the call is over either way.
	if deadline, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(deadline) // Best effort: a Unix socket supports deadlines.
	}
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := rpc.NDJSON.Writer(nc).WriteFrame(req); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	r := rpc.NDJSON.Reader(nc)
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%s: reading the response: %w", method, err)
		}
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *rpc.Error      `json:"error"`
		}
		if err := json.Unmarshal(frame, &resp); err != nil {
			return nil, fmt.Errorf("%s: malformed response: %w", method, err)
		}
		if resp.Method != "" || string(resp.ID) != "1" {
			continue // A notification; this connection subscribed to none.
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %w (code %d)", method, resp.Error, resp.Error.Code)
		}
		return resp.Result, nil
	}
}
