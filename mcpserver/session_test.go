//go:build unix

package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"ptywright"
)

var sessionTools = []string{"session_close", "session_list", "session_mouse", "session_read", "session_resize", "session_send", "session_snapshot", "session_start", "session_wait"}

var adapterTools = []string{"adapter_close", "adapter_send", "adapter_start", "adapter_state", "adapter_turn", "plugin_describe"}

func TestToolsHaveSchemasAndDescriptions(t *testing.T) {
	for _, tt := range []struct {
		name    string
		plugins bool
		want    []string
	}{
		{"sessions only", false, sessionTools},
		{"with plugins", true, append(append([]string{}, sessionTools...), adapterTools...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{}
			if tt.plugins {
				opts.Plugins = newPlugins(t, echoManifest)
			}
			s := serve(t, opts, nil)
			res, err := s.cs.ListTools(context.Background(), nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				require.NotEmpty(t, tool.Description, tool.Name)
				require.Greater(t, len(tool.Description), 80, "%s: a description a model can act on", tool.Name)
				require.NotNil(t, tool.InputSchema, tool.Name)
				require.NotNil(t, tool.OutputSchema, tool.Name)
			}
			require.ElementsMatch(t, tt.want, names)
			// What a model pays for on every request. Output schemas are
			// lean (an object): they were most of 32 KB. The nine session
			// tools fit in 8 KB; the six adapter tools add some 4.5 KB.
			raw, err := json.Marshal(res)
			require.NoError(t, err)
			t.Logf("tools/list: %d bytes", len(raw))
			limit := 8000
			if tt.plugins {
				limit = 12500
			}
			require.Less(t, len(raw), limit, "tools/list is %d bytes", len(raw))
		})
	}
}

func TestSessionStartSendWaitSnapshotClose(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)

	txt := s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo hi-$((6*7))", "keys": []string{"enter"}}, nil)
	require.Contains(t, txt, "keys [enter]")

	var w waitOut
	txt = s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "hi-42"}, &w)
	require.True(t, w.Matched)
	require.False(t, w.TimedOut)
	require.False(t, w.Exited)
	require.Contains(t, w.Screen, "\nhi-42")
	require.Contains(t, txt, `Matched text "hi-42"`)
	require.Contains(t, txt, "--- screen ---\n")
	require.Contains(t, txt, "\nhi-42\n", "the text rendering carries the screen")

	var snap snapshotOut
	txt = s.ok(t, "session_snapshot", map[string]any{"session": st.Session}, &snap)
	require.Contains(t, snap.Text, "hi-42")
	require.Equal(t, 24, snap.Rows)
	require.Equal(t, 80, snap.Cols)
	require.Empty(t, snap.Cells, "cells only when asked")
	require.Contains(t, txt, "hi-42")
	require.Contains(t, txt, "80x24")

	snap = snapshotOut{}
	s.ok(t, "session_snapshot", map[string]any{"session": st.Session, "cells": true}, &snap)
	require.Empty(t, snap.Cells, "cells as runs by default")
	require.Less(t, len(snap.Runs), 24*4, "a run or a few a row")
	cells := ptywright.CellsOfRuns(snap.Runs)
	require.Len(t, cells, 24*80)
	snap = snapshotOut{}
	s.ok(t, "session_snapshot", map[string]any{"session": st.Session, "cells": true, "cell_format": "cells"}, &snap)
	require.Equal(t, cells, snap.Cells)
	require.Empty(t, snap.Runs)

	// Some rows: the text and the runs of those rows.
	lines := strings.Split(snap.Text, "\n")
	snap = snapshotOut{}
	txt = s.ok(t, "session_snapshot", map[string]any{"session": st.Session, "cells": true, "from_row": 1, "to_row": 3}, &snap)
	require.Equal(t, strings.TrimRight(strings.Join(lines[1:3], "\n"), "\n"), snap.Text)
	require.Equal(t, &ptywright.RowRange{From: 1, To: 3}, snap.RowRange)
	require.Equal(t, cells[80:240], ptywright.CellsOfRuns(snap.Runs))
	require.Contains(t, txt, "rows 1 to 2")
	snap = snapshotOut{}
	s.ok(t, "session_snapshot", map[string]any{"session": st.Session, "from_row": 30}, &snap)
	require.Empty(t, snap.Text)
	require.Equal(t, &ptywright.RowRange{From: 24, To: 24}, snap.RowRange)
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"from_row": -1}, "from_row: must be at least 0, got -1"},
		{map[string]any{"from_row": 4, "to_row": 4}, "to_row: must be greater than from_row (4), got 4"},
		{map[string]any{"to_row": -2}, "to_row: must be greater than from_row (0), got -2"},
		{map[string]any{"cells": true, "cell_format": "html"}, `cell_format: must be "runs" or "cells", got "html"`},
		{map[string]any{"cell_format": "cells"}, "cell_format: give cells: true with it"},
	} {
		tt.args["session"] = st.Session
		s.fails(t, "session_snapshot", tt.args, tt.want)
	}

	var closed struct {
		Closed bool `json:"closed"`
		Exited bool `json:"exited"`
	}
	s.ok(t, "session_close", map[string]any{"session": st.Session}, &closed)
	require.True(t, closed.Closed)
	require.True(t, closed.Exited)
	requireGone(t, st.Pid)
	s.fails(t, "session_snapshot", map[string]any{"session": st.Session}, `unknown session "`+st.Session+`" (open sessions: none)`)
}

func TestSessionSendKeysInOrder(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)
	// The text first, then the keys in order.
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo aXb", "keys": []string{"left", "backspace", "enter"}}, nil)
	var w waitOut
	// Wait for the next prompt too: keys typed before bash's line editor
	// is back would be cooked by the tty (its erase eats the arrow's bytes).
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^ab\nptw\$ $`}, &w)
	require.True(t, w.Matched, w.Screen)
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo ab", "keys": []string{"left", "backspace", "end", "enter"}}, nil)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^b\nptw\$ $`}, &w)
	require.True(t, w.Matched, w.Screen)
	// Keys with modifiers: Alt+Left moves back a word in readline.
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo xone two", "keys": []string{"alt_left", "alt_left", "delete", "end", "enter"}}, nil)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^one two$`}, &w)
	require.True(t, w.Matched, w.Screen)
}

func TestSessionWaitOutcomes(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)

	t.Run("timeout is a result with the last screen", func(t *testing.T) {
		var w waitOut
		txt := s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "never-shown", "timeout_ms": 50}, &w)
		require.False(t, w.Matched)
		require.True(t, w.TimedOut)
		require.Contains(t, w.Screen, "ptw$")
		require.Contains(t, txt, "timed out")
		require.Contains(t, txt, "ptw$")
	})
	t.Run("regex capture", func(t *testing.T) {
		s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo v=$((40+2))", "keys": []string{"enter"}}, nil)
		var w waitOut
		s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^v=(\d+)`}, &w)
		require.True(t, w.Matched)
		require.Equal(t, "42", w.Capture)
	})
	t.Run("stable", func(t *testing.T) {
		var w waitOut
		s.ok(t, "session_wait", map[string]any{"session": st.Session, "stable_ms": 30}, &w)
		require.True(t, w.Matched)
	})
	t.Run("exited", func(t *testing.T) {
		var x startOut
		s.ok(t, "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo bye; exit 3"}}, &x)
		var w waitOut
		txt := s.ok(t, "session_wait", map[string]any{"session": x.Session, "exited": true}, &w)
		require.True(t, w.Matched)
		require.True(t, w.Exited)
		require.Equal(t, 3, *w.ExitCode)
		require.Contains(t, w.Screen, "bye")
		require.Contains(t, txt, "exited with code 3")
	})
	t.Run("an exit ends a wait for text", func(t *testing.T) {
		var x startOut
		s.ok(t, "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo going; exit 5"}}, &x)
		var w waitOut
		txt := s.ok(t, "session_wait", map[string]any{"session": x.Session, "text": "never-shown"}, &w)
		require.False(t, w.Matched)
		require.False(t, w.TimedOut)
		require.True(t, w.Exited)
		require.Equal(t, 5, *w.ExitCode)
		require.Contains(t, txt, "Not matched")
		require.Contains(t, txt, "going")
	})
}

func TestSessionErrorsAreToolResults(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"session_start", map[string]any{"program": ""}, "program: must not be empty"},
		{"session_start", map[string]any{}, `missing properties: ["program"]`},
		{"session_start", map[string]any{"program": "/no/such/program"}, "starting /no/such/program"},
		{"session_start", map[string]any{"program": "sh", "cwd": file}, "is not a directory"},
		{"session_start", map[string]any{"program": "sh", "cwd": file + "/missing"}, "cwd: "},
		{"session_start", map[string]any{"program": "sh", "rows": -1}, "rows"},
		{"session_start", map[string]any{"program": "sh", "bogus": 1}, "bogus"},
		{"session_send", map[string]any{"session": "s99", "text": "x"}, `unknown session "s99" (open sessions: ` + st.Session + `)`},
		{"session_send", map[string]any{"session": st.Session}, "nothing to send"},
		{"session_send", map[string]any{"session": st.Session, "text": "x", "keys": []string{"enter", "Enter"}}, `keys[1]: ptywright: unknown key "Enter"`},
		{"session_send", map[string]any{"session": st.Session, "keys": []string{"shift_ctrl_left"}}, "did you mean ctrl_shift_left?"},
		{"session_send", map[string]any{"session": st.Session, "keys": "enter"}, "keys"},
		{"session_wait", map[string]any{"session": "s99", "text": "x"}, `unknown session "s99"`},
		{"session_wait", map[string]any{"session": st.Session}, "exactly one of text, regex, stable_ms or exited (got 0)"},
		{"session_wait", map[string]any{"session": st.Session, "text": "a", "exited": true}, "(got 2)"},
		{"session_wait", map[string]any{"session": st.Session, "regex": "("}, "regex"},
		{"session_wait", map[string]any{"session": st.Session, "stable_ms": -5}, "stable_ms: must be positive"},
		{"session_wait", map[string]any{"session": st.Session, "text": "a", "timeout_ms": -1}, "timeout_ms: must be between"},
		{"session_snapshot", map[string]any{"session": "s99"}, `unknown session "s99"`},
		{"session_snapshot", map[string]any{"session": 7}, "session"},
		{"session_close", map[string]any{"session": "s99"}, `unknown session "s99"`},
	} {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			s.fails(t, tt.tool, tt.args, tt.want)
		})
	}
	// Nothing half-sent: the bad key call left no "x" behind, and the
	// session is intact.
	var snap snapshotOut
	s.ok(t, "session_snapshot", map[string]any{"session": st.Session}, &snap)
	require.NotContains(t, snap.Text, "x")
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo still-here", "keys": []string{"enter"}}, nil)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "\nstill-here"}, &w)
	require.True(t, w.Matched)
}

func TestSessionOutputIsRedacted(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)
	secret := "sk-" + strings.Repeat("a1b2", 6)
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo token=" + secret + " done", "keys": []string{"enter"}}, nil)
	var w waitOut
	txt := s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^token=.* done`}, &w)
	require.True(t, w.Matched)
	res := s.call(t, "session_snapshot", map[string]any{"session": st.Session, "cells": true})
	for _, got := range []string{txt, w.Screen, w.Capture, text(res), mustJSON(t, res.StructuredContent)} {
		require.NotContains(t, got, secret)
	}
	require.Contains(t, w.Screen, "[REDACTED]")
}

// A wait the client cancels ends on the server at once: no wait is left
// running, and the session is usable.
func TestSessionWaitCancelled(t *testing.T) {
	progressed := make(chan struct{}, 1)
	s := serve(t, Options{ProgressInterval: 5 * time.Millisecond}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
	})
	st := s.startShell(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "session_wait", Arguments: map[string]any{"session": st.Session, "text": "never-shown", "timeout_ms": patience.Milliseconds() * 10}}
		params.SetProgressToken("cancel-me")
		_, err := s.cs.CallTool(ctx, params)
		errc <- err
	}()
	<-progressed // The wait is running on the server.
	require.NotZero(t, waitsRunning())
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	require.Eventually(t, func() bool { return waitsRunning() == 0 }, patience, 5*time.Millisecond, "the server's wait outlived the cancellation")
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "ptw$"}, &w)
	require.True(t, w.Matched)
}

// waitsRunning counts goroutines inside Session.Wait.
func waitsRunning() int {
	n := 0
	for _, g := range goroutines() {
		if strings.Contains(g, "ptywright.(*Session).Wait(") {
			n++
		}
	}
	return n
}

// A long wait reports progress to a client that sent a token; the test
// acts on the first report, so nothing depends on timing.
func TestSessionWaitReportsProgress(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	first := make(chan struct{})
	var once sync.Once
	s := serve(t, Options{ProgressInterval: 5 * time.Millisecond}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
			once.Do(func() { close(first) })
		},
	})
	st := s.startShell(t)
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "session_wait", Arguments: map[string]any{"session": st.Session, "text": "go-on-now"}}
		params.SetProgressToken(42)
		res, err := s.cs.CallTool(context.Background(), params)
		done <- result{res, err}
	}()
	<-first
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "echo go-on-$((1))now | tr -d 1", "keys": []string{"enter"}}, nil)
	r := <-done
	require.NoError(t, r.err)
	require.False(t, r.res.IsError, text(r.res))
	require.Contains(t, text(r.res), "Matched")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, got)
	require.EqualValues(t, 42, got[0].ProgressToken)
	require.Contains(t, got[0].Message, `waiting for text "go-on-now"`)
}

// after_sequence holds a wait until the screen changes after the input:
// text already on screen does not answer it.
func TestSessionWaitAfterSequence(t *testing.T) {
	s := serve(t, Options{}, nil)
	var st startOut
	s.ok(t, "session_start", map[string]any{"program": "/bin/sh", "args": []string{"-c", "stty -echo; echo old-marker; exec cat"}}, &st)
	var w waitOut
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "old-marker"}, &w)
	require.True(t, w.Matched)

	// Without echo, typing changes nothing on screen.
	var sent struct {
		Bytes    int    `json:"bytes"`
		Sequence uint64 `json:"sequence"`
	}
	s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "typed"}, &sent)
	require.Equal(t, 5, sent.Bytes)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "old-marker", "after_sequence": sent.Sequence, "timeout_ms": 100}, &w)
	require.False(t, w.Matched, "the screen from before the input answered the wait")
	require.True(t, w.TimedOut)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "old-marker", "timeout_ms": 100}, &w)
	require.True(t, w.Matched, "without after_sequence the old screen answers")

	// Enter makes cat print the line: the screen changes after the input.
	s.ok(t, "session_send", map[string]any{"session": st.Session, "keys": []string{"enter"}}, &sent)
	s.ok(t, "session_wait", map[string]any{"session": st.Session, "text": "old-marker", "after_sequence": sent.Sequence}, &w)
	require.True(t, w.Matched)
	require.Contains(t, w.Screen, "old-marker\ntyped")
}

// A wait after a command typed into bash, with the send's sequence as
// after_sequence, answers on the output line, not on the echoed command
// line that holds the same text.
func TestSessionWaitAfterSequenceSkipsTheEcho(t *testing.T) {
	s := serve(t, Options{}, nil)
	st := s.startShell(t)
	var sent struct {
		Sequence uint64 `json:"sequence"`
	}
	var w waitOut
	for i := range 5 {
		mark := fmt.Sprintf("MARK%d", i)
		s.ok(t, "session_send", map[string]any{"session": st.Session, "text": "sleep 0.01; echo " + mark, "keys": []string{"enter"}}, &sent)
		s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^.*` + mark + `.*$`, "after_sequence": sent.Sequence}, &w)
		require.True(t, w.Matched)
		require.Equal(t, mark, w.Capture, "iteration %d:\n%s", i, w.Screen)
		s.ok(t, "session_wait", map[string]any{"session": st.Session, "regex": `(?m)^ptw\$ \z`, "after_sequence": sent.Sequence}, &w)
		require.True(t, w.Matched)
	}
}
