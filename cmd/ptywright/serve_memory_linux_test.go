package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"ptywright/contract"
)

// The memory bombs of issue 22 against `ptywright serve` under an
// address-space cap: before plugins had a memory budget, the concat
// doubling took the server down with "fatal error: out of memory" and
// every session with it.

// serverAddressSpace caps the server's virtual memory: an idle server maps
// about 1.7 GB (the Go runtime's reservations), so this leaves it some
// 1.3 GB, twenty times its plugins' default budget and a small fraction
// of what any bomb below asks for.
const serverAddressSpace = 3 << 30

var (
	cappedBinOnce sync.Once
	cappedBin     string
	cappedBinErr  error
)

// cappedBinary is the ptywright binary to run under an address-space cap.
// A race-detector build maps terabytes of shadow memory and cannot start
// under one, so when the tests run with -race this builds a plain binary.
func cappedBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		return pwBin
	}
	cappedBinOnce.Do(func() {
		cappedBin = filepath.Join(filepath.Dir(pwBin), "ptywright-norace")
		cmd := exec.Command("go", "build", "-o", cappedBin, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			cappedBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, cappedBinErr)
	return cappedBin
}

// startCappedServe is startServe with the server's address space capped
// at serverAddressSpace (setrlimit RLIMIT_AS through prlimit(2), set before
// the server listens, so before any call reaches it).
func startCappedServe(t *testing.T, args ...string) *cappedServer {
	t.Helper()
	dir, err := os.MkdirTemp("", "ptwmem")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &cappedServer{server: &server{stderr: new(bytes.Buffer), done: make(chan error, 1), socket: filepath.Join(dir, "serve.sock")}, log: new(lockedBuffer)}
	s.cmd = exec.Command(cappedBinary(t), append([]string{"serve", "--socket", s.socket, "--allow-plugin-load", "--plugin", "testdata/membomb/manifest.toml"}, args...)...)
	s.cmd.Stderr = s.log
	s.start(t)
	limit := unix.Rlimit{Cur: serverAddressSpace, Max: serverAddressSpace}
	require.NoError(t, unix.Prlimit(s.cmd.Process.Pid, unix.RLIMIT_AS, &limit, nil))
	limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", s.cmd.Process.Pid))
	require.NoError(t, err)
	require.Regexp(t, `Max address space\s+`+strconv.Itoa(serverAddressSpace)+`\s`, string(limits))
	waitListening(t, s.server, s.log)
	return s
}

// cappedServer is a server whose stderr can be read while it runs.
type cappedServer struct {
	*server
	log *lockedBuffer
}

// lockedBuffer is a bytes.Buffer safe for the writer (exec's copying
// goroutine) and a reader at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// callErr makes one call and returns its error reply (nil on success).
// The deadline only turns a hang into a failure.
func (s *cappedServer) callErr(method string, params any) error {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	_, err := call(ctx, s.socket, method, params)
	return err
}

// echoSession starts a membomb adapter over cat and returns its adapter
// and session ids once a line typed into it came back.
func echoSession(t *testing.T, s *cappedServer) (adapter, session string) {
	t.Helper()
	var started struct {
		Adapter string `json:"adapter"`
		Session string `json:"session"`
	}
	s.call(t, "adapter.start", map[string]any{"plugin": "membomb"}, &started)
	requireEchoes(t, s, started.Adapter, started.Session, "before")
	return started.Adapter, started.Session
}

// requireEchoes sends a line through the adapter and waits for cat to
// write it back: the session, its program and its adapter all work.
func requireEchoes(t *testing.T, s *cappedServer, adapter, session, word string) {
	t.Helper()
	s.call(t, "adapter.send", map[string]any{"adapter": adapter, "intent": "send_text", "params": map[string]any{"text": "echo-" + word}}, nil)
	s.call(t, "session.wait", map[string]any{"session": session, "timeout_ms": patience.Milliseconds(),
		"matcher": map[string]any{"type": "screen_regex", "value": "(?s)echo-" + word + ".*\\n.*echo-" + word}}, nil)
}

// requireAlive checks that the server process runs, answers, and that the
// session started before the bomb still works.
func requireAlive(t *testing.T, s *cappedServer, adapter, session, word string) {
	t.Helper()
	select {
	case err := <-s.done:
		t.Fatalf("the server exited: %v\nstderr:\n%s", err, s.log)
	default:
	}
	s.call(t, "server.capabilities", nil, nil)
	requireEchoes(t, s, adapter, session, word)
	var live struct {
		Adapters []struct {
			Adapter  string `json:"adapter"`
			Finished bool   `json:"finished"`
		} `json:"adapters"`
	}
	s.call(t, "adapter.live", nil, &live)
	found := false
	for _, a := range live.Adapters {
		if a.Adapter == adapter {
			found = true
			require.False(t, a.Finished, "the session's program still runs")
		}
	}
	require.True(t, found, "adapter %s is still live: %+v", adapter, live)
}

// serveBombs are run as inline plugin.call scripts under the server's
// default limits (a 64 MiB memory budget; a hook has no instruction
// budget, only its timeout, here the longest allowed, so that only a
// budget can answer first). want lists the messages that may answer.
var serveBombs = []struct {
	name string
	body string
	want []string
}{
	{"concat doubling", `local s = 'xxxxxxxx' for i = 1, 40 do s = s .. s end`, []string{"memory budget exceeded (64 MiB)"}},
	{"string.rep", `local t = {} for i = 1, 1e6 do t[i] = string.rep('x', 1e7) end`, []string{"memory budget exceeded"}},
	{"string.rep with separator", `local t = {} for i = 1, 1e6 do t[i] = ('x'):rep(1e6, ',') end`, []string{"memory budget exceeded"}},
	// table.concat's own cap per result (16 MiB) may answer first.
	{"table.concat of a growing table", `local t = {'xxxxxxxx'} for i = 1, 60 do t[#t + 1] = table.concat(t) end`, []string{"memory budget exceeded", "table.concat: result would exceed"}},
	{"table growth", `local t = {} for i = 1, 1e10 do t[i] = i end`, []string{"memory budget exceeded"}},
	{"string.format width", `local t = {} for i = 1, 1e9 do t[i] = string.format('%99d', i) end`, []string{"memory budget exceeded"}},
	{"string.format doubling", `local s = 'xxxxxxxx' for i = 1, 40 do s = string.format('%s%s', s, s) end`, []string{"memory budget exceeded"}},
	{"gsub amplification", `local s = ('x'):rep(1e5):gsub('.*', ('%0'):rep(1e4))`, []string{"memory budget exceeded"}},
	{"deep recursion", `local function f(n) return f(n + 1) + 1 end f(1)`, []string{"stack overflow"}},
	{"pcall swallowing a budget", `while true do pcall(function() local s = 'x' for j = 1, 40 do s = s .. s end end) end`, []string{"memory budget exceeded"}},
	{"closures in a loop", `local t = {} for i = 1, 1e10 do t[i] = function() return i end end`, []string{"memory budget exceeded"}},
}

func TestServeMemoryBombsInline(t *testing.T) {
	s := startCappedServe(t)
	adapter, session := echoSession(t, s)
	t.Run("the issue's script, at load", func(t *testing.T) {
		src := "local s = 'xxxxxxxx'\nfor i = 1, 40 do s = s .. s end\nreturn #s\n"
		err := s.callErr("plugin.call", map[string]any{"source": src, "hook": "main", "timeout_ms": 60_000})
		require.ErrorContains(t, err, "memory budget exceeded (64 MiB)")
		requireAlive(t, s, adapter, session, "load")
	})
	for i, tt := range serveBombs {
		t.Run(tt.name, func(t *testing.T) {
			src := "function bomb()\n" + tt.body + "\nreturn 'survived'\nend\n"
			err := s.callErr("plugin.call", map[string]any{"source": src, "hook": "bomb", "timeout_ms": 60_000})
			require.Error(t, err, "the bomb must fail")
			requireOneOf(t, err.Error(), tt.want)
			requireAlive(t, s, adapter, session, strconv.Itoa(i))
		})
	}
}

// TestServeMemoryBombInPlugin runs the concat doubling in a plugin's
// classifier, an intent, an event handler and a hook.
func TestServeMemoryBombInPlugin(t *testing.T) {
	s := startCappedServe(t)
	adapter, session := echoSession(t, s)

	t.Run("intent", func(t *testing.T) {
		err := s.callErr("adapter.send", map[string]any{"adapter": adapter, "intent": "explode"})
		require.ErrorContains(t, err, "memory budget exceeded (64 MiB)")
		requireAlive(t, s, adapter, session, "intent")
	})
	t.Run("hook", func(t *testing.T) {
		err := s.callErr("plugin.call", map[string]any{"plugin": "membomb", "hook": "bomb", "timeout_ms": 60_000})
		require.ErrorContains(t, err, "memory budget exceeded (64 MiB)")
		requireAlive(t, s, adapter, session, "hook")
		require.NoError(t, s.callErr("plugin.call", map[string]any{"plugin": "membomb", "hook": "ping"}))
	})
	t.Run("event handler", func(t *testing.T) {
		// A handler's failure has no caller to answer: it is logged. Any
		// session's resize runs it in the adapter's instance.
		var created struct {
			Session string `json:"session"`
		}
		s.call(t, "session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "cat"}}, &created)
		// The server compares the size with what it saw at the session's
		// last change: let it see one first, and change the screen after
		// the resize.
		catEchoes(t, s, created.Session, "first")
		s.call(t, "session.resize", map[string]any{"session": created.Session, "rows": 30, "cols": 100}, nil)
		catEchoes(t, s, created.Session, "second")
		deadline := time.Now().Add(patience)
		for !strings.Contains(s.log.String(), "memory budget exceeded") {
			require.True(t, time.Now().Before(deadline), "no handler failure logged; stderr:\n%s", s.log)
			select {
			case err := <-s.done:
				t.Fatalf("the server exited: %v\nstderr:\n%s", err, s.log)
			case <-time.After(10 * time.Millisecond):
			}
		}
		require.Contains(t, s.log.String(), "event handler failed")
		requireAlive(t, s, adapter, session, "handler")
		catEchoes(t, s, created.Session, "third")
	})

	t.Run("classify", func(t *testing.T) {
		// Last: the classifier bombs for as long as the screen shows the
		// word, which cat keeps there.
		requireEchoes(t, s, adapter, session, "BOOMCLASSIFY")
		var st struct {
			State struct {
				State    string `json:"state"`
				Evidence string `json:"evidence"`
			} `json:"state"`
		}
		s.call(t, "adapter.state", map[string]any{"adapter": adapter}, &st)
		require.Equal(t, contract.PluginErrorState, st.State.State, "a failing classifier yields the plugin error state")
		require.Contains(t, st.State.Evidence, "memory budget exceeded (64 MiB)")
		requireAlive(t, s, adapter, session, "classify")
	})

	require.NoError(t, s.stop(t, syscall.SIGTERM), "the server exits cleanly; stderr:\n%s", s.log)
}

// catEchoes types word into a raw session running cat and waits for it
// to come back.
func catEchoes(t *testing.T, s *cappedServer, session, word string) {
	t.Helper()
	s.call(t, "session.input", map[string]any{"session": session, "action": map[string]any{"type": "text", "value": word + "\r"}}, nil)
	s.call(t, "session.wait", map[string]any{"session": session, "timeout_ms": patience.Milliseconds(),
		"matcher": map[string]any{"type": "screen_regex", "value": "(?s)" + word + ".*\\n.*" + word}}, nil)
}

func requireOneOf(t *testing.T, msg string, want []string) {
	t.Helper()
	for _, w := range want {
		if strings.Contains(msg, w) {
			return
		}
	}
	t.Fatalf("error %q contains none of %q", msg, want)
}
