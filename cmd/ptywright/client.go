package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"ptywright/rpc"
)

// socketEnv names the environment variable that sets the socket serve
// listens on and the client commands connect to when --socket is not given.
const socketEnv = "PTYWRIGHT_SOCKET"

// socketUsage is the --socket flag's help in the client commands.
const socketUsage = "connect to the server's socket at `PATH`; default $" + socketEnv + ", else $PTYWRIGHT_HOME/socket, else ~/.ptywright/socket"

// resolveSocket returns the socket path: the flag's value, else
// $PTYWRIGHT_SOCKET, else the per-user default (rpc.DefaultSocketPath).
func resolveSocket(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if p := os.Getenv(socketEnv); p != "" {
		return p, nil
	}
	return rpc.DefaultSocketPath()
}

// Exit codes of the script client commands (start, send, wait, snapshot ID,
// list, close, adapter): exitOK when the call did what was asked, and
// exitNoMatch when a wait timed out or can no longer match, or an intent was
// not taken; every other failure is exitUsage's 2, a script's "error".
const exitNoMatch = 1

// exitError is a failure that carries its own exit code.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func (e *exitError) Unwrap() error { return e.err }

// connectError is a server that could not be reached on its socket.
type connectError struct {
	socket string
	err    error
}

func (e *connectError) Error() string {
	return fmt.Sprintf("connect to the server: %v (is \"ptywright serve\" running there?)", e.err)
}

func (e *connectError) Unwrap() error { return e.err }

// call makes one JSON-RPC call on the server's socket and returns its
// result; an error response is returned as the *rpc.Error, and a server
// that cannot be reached as a *connectError.
func call(ctx context.Context, socket, method string, params any) (json.RawMessage, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, &connectError{socket: socket, err: err}
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

// clientFlags are the flags every client command takes.
type clientFlags struct {
	// Socket is --socket; "" means resolveSocket's default.
	Socket string
	// JSON prints the JSON-RPC result as it came instead of text.
	JSON bool
}

func (c *clientFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&c.Socket, "socket", "", socketUsage)
	fs.BoolVar(&c.JSON, "json", false, "print the JSON-RPC result as it came, one line, instead of text")
}

// client is one client command's connection settings and output.
type client struct {
	cmd    string // the command line's command, "adapter send" say
	socket string
	json   bool
	stdout io.Writer
	stderr io.Writer
}

// newClient resolves the socket of a parsed client command line.
func newClient(cmd string, f clientFlags, stdout, stderr io.Writer) (*client, error) {
	path, err := resolveSocket(f.Socket)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", cmd, err)}
	}
	return &client{cmd: cmd, socket: path, json: f.JSON, stdout: stdout, stderr: stderr}, nil
}

// do calls method and returns its result. Its errors carry the client's
// exit codes: a server that cannot be reached, an unknown id, any error
// response is 2; the caller decides which errors are "no match" (1).
func (c *client) do(ctx context.Context, method string, params any) (json.RawMessage, error) {
	res, err := call(ctx, c.socket, method, params)
	if err == nil {
		return res, nil
	}
	var ce *connectError
	if errors.As(err, &ce) {
		inner := ce.err
		var oe *net.OpError
		if errors.As(inner, &oe) && oe.Err != nil {
			inner = oe.Err // The path is said once, below.
		}
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: cannot connect to the server at %s: %v (is \"ptywright serve\" running there? --socket or $%s names another)", c.cmd, c.socket, inner, socketEnv)}
	}
	return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", c.cmd, err)}
}

// printJSON writes a result as it came, on one line.
func (c *client) printJSON(res json.RawMessage) error {
	_, err := fmt.Fprintf(c.stdout, "%s\n", res)
	return err
}

// rpcError returns the *rpc.Error inside err, or nil.
func rpcError(err error) *rpc.Error {
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// parseClientArgs parses a command line whose positional arguments (ids,
// intents) and flags may come in any order, as in "send s1 --text hi";
// after "--" everything is positional. --help prints the command's usage.
func parseClientArgs(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, help bool, err error) {
	for {
		if help, err := parseFlags(fs, args, stdout); help || err != nil {
			return nil, help, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), false, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
