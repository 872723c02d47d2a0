package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"ptywright/rpc"
)

const attachSynopsis = "attach [--socket PATH] [--control] [--detach-key KEY] ID"

const attachDetails = `Shows session ID (or adapter ID's session) live in this terminal: a full
paint of its parsed screen on the alternate screen, repainted as it
changes, with a status line at the bottom (id, program, size, the adapter's
state, read-only or control, the detach key). A terminal slower than the
session skips the screens it could not paint in time, and the status line
counts them; the session never waits for a viewer. Several viewers may
attach at once.

Read-only unless --control: then the keys typed go to the program, and
while this terminal has control the session's adapter refuses its intents
(adapter.send and adapter.turn answer -32006: a person has the terminal);
its reads keep working. The detach key (Ctrl-] unless --detach-key) leaves
the session running and gives control back, as does any other end of attach.

When the program exits the status line says so, and its last screen stays
until the detach key. Exits 0 on detach, 1 on a signal, 2 on any error.
`

// attachConfig is attach's command line.
type attachConfig struct {
	Socket    string
	Control   bool
	DetachKey string
}

func attachFlags(cfg *attachConfig) *flag.FlagSet {
	fs := newFlagSet("attach")
	fs.StringVar(&cfg.Socket, "socket", "", socketUsage)
	fs.BoolVar(&cfg.Control, "control", false, "forward the keys typed to the session; its adapter refuses intents meanwhile")
	fs.StringVar(&cfg.DetachKey, "detach-key", "ctrl-]", "the `KEY` that detaches: ctrl-X (X a letter or one of @[\\]^_)")
	return fs
}

func attachCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg attachConfig
	fs := attachFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	id, err := oneID("attach", "session or adapter ID", pos)
	if err != nil {
		return err
	}
	key, err := parseDetachKey(cfg.DetachKey)
	if err != nil {
		return usagef("attach", "--detach-key: %v", err)
	}
	c, err := newClient("attach", clientFlags{Socket: cfg.Socket}, stdout, stderr)
	if err != nil {
		return err
	}
	return attachTerminal(ctx, c, attachTarget{id: id, control: cfg.Control, detach: key, detachName: cfg.DetachKey}, stdin)
}

// parseDetachKey turns "ctrl-]" (or "^]") into the byte a terminal sends
// for it.
func parseDetachKey(s string) (byte, error) {
	rest, ok := strings.CutPrefix(strings.ToLower(s), "ctrl-")
	if !ok {
		rest, ok = strings.CutPrefix(s, "^")
	}
	if !ok || len(rest) != 1 {
		return 0, fmt.Errorf("want ctrl-X, got %q", s)
	}
	c := strings.ToUpper(rest)[0]
	if c < '@' || c > '_' {
		return 0, fmt.Errorf("want ctrl-X with X a letter or one of @[\\]^_, got %q", s)
	}
	return c & 0x1f, nil
}

// attachTarget is what attach was asked to show, and how.
type attachTarget struct {
	id         string
	control    bool
	detach     byte
	detachName string
}

// attachInfo is the session attach resolved its ID to.
type attachInfo struct {
	Session string `json:"session"`
	Adapter string `json:"adapter"`
	Program string `json:"program"`
}

// resolveAttach finds session or adapter id among the server's sessions.
func resolveAttach(ctx context.Context, rc *attachConn, id string) (attachInfo, error) {
	res, err := rc.call(ctx, "session.list", map[string]any{"details": true})
	if err != nil {
		return attachInfo{}, err
	}
	var out struct{ Details []attachInfo }
	if err := json.Unmarshal(res, &out); err != nil {
		return attachInfo{}, fmt.Errorf("session.list: malformed result: %w", err)
	}
	for _, d := range out.Details {
		if d.Session == id || (d.Adapter != "" && d.Adapter == id) {
			return d, nil
		}
	}
	return attachInfo{}, fmt.Errorf("no session or adapter %q on the server", id)
}

// attachConn is one long-lived JSON-RPC connection to the server: calls from
// several goroutines, and notifications handed to onNote as they come.
type attachConn struct {
	nc     net.Conn
	onNote func(method string, params json.RawMessage)

	wmu sync.Mutex
	w   rpc.FrameWriter

	mu      sync.Mutex
	next    int
	pending map[int]chan attachReply
	err     error         // why the connection ended, once it has
	done    chan struct{} // closed when the read loop has ended
}

// attachReply is one response.
type attachReply struct {
	result json.RawMessage
	err    error
}

// dialAttach connects to the server's socket; onNote sees every notification,
// on the read loop's goroutine (it must not block).
func dialAttach(ctx context.Context, socket string, onNote func(string, json.RawMessage)) (*attachConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, &connectError{socket: socket, err: err}
	}
	rc := &attachConn{nc: nc, onNote: onNote, w: rpc.NDJSON.Writer(nc), pending: map[int]chan attachReply{}, done: make(chan struct{})}
	go rc.readLoop(rpc.NDJSON.Reader(nc))
	return rc, nil
}

func (rc *attachConn) readLoop(r rpc.FrameReader) {
	var err error
	for {
		var frame []byte
		if frame, err = r.ReadFrame(); err != nil {
			break
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *rpc.Error      `json:"error"`
		}
		if err = json.Unmarshal(frame, &m); err != nil {
			err = fmt.Errorf("malformed message from the server: %w", err)
			break
		}
		if m.Method != "" {
			rc.onNote(m.Method, m.Params)
			continue
		}
		if m.ID == nil {
			continue
		}
		rc.mu.Lock()
		ch := rc.pending[*m.ID]
		delete(rc.pending, *m.ID)
		rc.mu.Unlock()
		if ch == nil {
			continue
		}
		if m.Error != nil {
			ch <- attachReply{err: m.Error}
		} else {
			ch <- attachReply{result: m.Result}
		}
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the server closed the connection")
	}
	rc.mu.Lock()
	rc.err = err
	rc.mu.Unlock()
	close(rc.done)
}

// call makes one call and waits for its response, the context's end or
// the connection's.
func (rc *attachConn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan attachReply, 1)
	rc.mu.Lock()
	if rc.err != nil {
		err := rc.err
		rc.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	rc.next++
	id := rc.next
	rc.pending[id] = ch
	rc.mu.Unlock()
	// A call that ends without its response (a write error, the context's
	// end) takes its entry back; the reader removes it otherwise.
	defer func() {
		rc.mu.Lock()
		delete(rc.pending, id)
		rc.mu.Unlock()
	}()
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	rc.wmu.Lock()
	err = rc.w.WriteFrame(req)
	rc.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", method, r.err)
		}
		return r.result, nil
	case <-rc.done:
		rc.mu.Lock()
		err := rc.err
		rc.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// close ends the connection; the server releases what it held (control).
func (rc *attachConn) close() { _ = rc.nc.Close() } // Best effort: attach is ending.
