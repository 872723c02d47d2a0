//go:build unix

package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/plugins"
)

// patience bounds how long a test waits for something that should happen
// at once; it only turns a hang into a failure.
const patience = 10 * time.Second

const (
	echoManifest    = "../testdata/plugins/echo/manifest.toml"
	noinputManifest = "testdata/plugins/noinput/manifest.toml"
)

// TestMain fails the run when any goroutine of ours outlives the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if leaked := ourGoroutines(2 * time.Second); leaked != "" {
			os.Stderr.WriteString("goroutines leaked by ptywright:\n" + leaked + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// ourGoroutines waits up to d for goroutines running ptywright code to end
// and returns the stacks of those still alive.
func ourGoroutines(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		var leaked []string
		for _, g := range goroutines() {
			ours := strings.Contains(g, "ptywright.(*") || strings.Contains(g, "ptywright/mcpserver.")
			test := strings.Contains(g, "testing.tRunner") || strings.Contains(g, "mcpserver.TestMain")
			if ours && !test {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func goroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Split(string(buf), "\n\n")
}

// newPlugins returns a registry without the embedded built-ins holding the
// given manifests, closed at the end of the test.
func newPlugins(t testing.TB, manifests ...string) *plugins.Registry {
	t.Helper()
	p, err := plugins.New(plugins.Options{NoBuiltins: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	for _, path := range manifests {
		_, err := p.Load(path)
		require.NoError(t, err)
	}
	return p
}

// served is a server serving one in-memory client.
type served struct {
	cs   *mcp.ClientSession
	raw  *keptTransport
	done chan error // Serve's return
}

// keptTransport keeps the client's connection, so a test can drop it the
// way a client process that dies does, without the goodbye of
// ClientSession.Close (which waits for the calls in flight).
type keptTransport struct {
	mcp.Transport
	conn mcp.Connection
}

func (k *keptTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := k.Transport.Connect(ctx)
	k.conn = c
	return c, err
}

// serve connects a client of the SDK's own to a new server over the SDK's
// in-memory transport. At the end of the test the client disconnects and
// Serve must return nil.
func serve(t *testing.T, opts Options, copts *mcp.ClientOptions) *served {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- New(opts).Serve(context.Background(), st) }()
	raw := &keptTransport{Transport: ct}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, copts).Connect(context.Background(), raw, nil)
	require.NoError(t, err)
	s := &served{cs: cs, raw: raw, done: done}
	t.Cleanup(func() { s.disconnect(t) })
	return s
}

// disconnect closes the client and waits for Serve to return, which it
// does only after closing everything the client started.
func (s *served) disconnect(t *testing.T) {
	t.Helper()
	_ = s.cs.Close() // Closing twice is fine; the first error is the one that matters.
	s.waitServe(t)
}

// drop cuts the client's connection as a dying client process does, and
// waits for Serve to return.
func (s *served) drop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.raw.conn.Close())
	s.waitServe(t)
}

func (s *served) waitServe(t *testing.T) {
	t.Helper()
	select {
	case err, ok := <-s.done:
		if ok {
			require.NoError(t, err)
			close(s.done)
		}
	case <-time.After(patience):
		t.Fatal("Serve did not return after the client disconnected")
	}
}

// call calls a tool, which must answer a tool result (never a protocol
// error).
func (s *served) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "%s must answer a tool result", name)
	return res
}

// ok calls a tool that must succeed and decodes its structured content.
func (s *served) ok(t *testing.T, name string, args any, out any) string {
	t.Helper()
	res := s.call(t, name, args)
	require.False(t, res.IsError, "%s failed: %s", name, text(res))
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out))
	}
	return text(res)
}

// fails calls a tool that must fail as a tool result whose text says want.
func (s *served) fails(t *testing.T, name string, args any, want string) {
	t.Helper()
	res := s.call(t, name, args)
	require.True(t, res.IsError, "%s must fail; got %s", name, text(res))
	require.Contains(t, text(res), want)
	require.Nil(t, res.StructuredContent, "a failure has no structured content")
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// requireGone fails unless pid is neither a live process nor an unreaped
// child (wait4 says ECHILD, kill(pid, 0) says ESRCH).
func requireGone(t *testing.T, pid int) {
	t.Helper()
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	require.ErrorIs(t, err, syscall.ECHILD, "child %d was not reaped", pid)
	require.Eventually(t, func() bool {
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}, patience, 10*time.Millisecond, "process %d is still alive", pid)
}

type startOut struct {
	Session string `json:"session"`
	Pid     int    `json:"pid"`
}

type waitOut struct {
	Matched   bool   `json:"matched"`
	TimedOut  bool   `json:"timed_out"`
	ElapsedMs int64  `json:"elapsed_ms"`
	Screen    string `json:"screen"`
	Capture   string `json:"capture"`
	Exited    bool   `json:"exited"`
	ExitCode  *int   `json:"exit_code"`
	Signal    string `json:"signal"`
}

type snapshotOut struct {
	Text     string              `json:"text"`
	Cursor   ptywright.Cursor    `json:"cursor"`
	Rows     int                 `json:"rows"`
	Cols     int                 `json:"cols"`
	RowRange *ptywright.RowRange `json:"row_range"`
	Cells    []ptywright.Cell    `json:"cells"`
	Runs     []ptywright.CellRun `json:"runs"`
	Exited   bool                `json:"exited"`
}

// startShell starts bash without start-up files, with a fixed prompt, and
// waits for the prompt.
func (s *served) startShell(t *testing.T) startOut {
	t.Helper()
	var st startOut
	s.ok(t, "session_start", map[string]any{"program": "bash", "args": []string{"--norc", "--noprofile"}, "env": map[string]string{"PS1": "ptw$ "}}, &st)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "ptw$"}, &w)
	require.True(t, w.Matched)
	return st
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
