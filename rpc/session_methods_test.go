//go:build unix

package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/contract"
)

type snapshotResult struct {
	Size      ptywright.Size   `json:"size"`
	PlainText string           `json:"plain_text"`
	Cells     []ptywright.Cell `json:"cells"`
}

func TestSessionCreateParams(t *testing.T) {
	srv := newServer(t, Options{})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.log")

	id := c.create(map[string]any{
		"program": "/bin/sh", "args": []string{"-c", `printf '\033[1mcwd=%s foo=%s\033[0m\n' "$(pwd)" "$FOO"; stty size; sleep 30`},
		"cwd": dir, "env": map[string]string{"FOO": "bar"},
		"rows": 30, "cols": 100, "pixel_width": 800, "pixel_height": 600,
		"transcript_max_chars": 20, "raw_transcript_path": raw,
	})
	res := c.wait(id, containsText("30 100"))
	require.Contains(t, res.Snapshot.PlainText, fmt.Sprintf("cwd=%s foo=bar", dir))
	require.Equal(t, ptywright.Size{Rows: 30, Cols: 100, PixelWidth: 800, PixelHeight: 600}, res.Snapshot.Size)

	var tr transcriptResult
	c.do("session.transcript", map[string]any{"session": id, "redact": false}, &tr)
	require.LessOrEqual(t, len([]rune(tr.Text)), 20, "transcript_max_chars bounds the transcript")
	require.Contains(t, tr.Text, "30 100")

	fi, err := os.Stat(raw)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(raw)
	require.NoError(t, err)
	require.Contains(t, string(b), "\x1b[1mcwd=", "the raw transcript keeps the escape sequences")

	// An existing raw transcript is refused unless appending.
	e := c.callErr("session.create", map[string]any{"program": "/bin/true", "raw_transcript_path": raw})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, raw)
	c.create(map[string]any{"program": "/bin/true", "raw_transcript_path": raw, "raw_transcript_append": true})

	for _, tt := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"program": "/bin/sh", "cwd": filepath.Join(dir, "missing")}, "cwd: stat " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{map[string]any{"program": "/bin/sh", "cwd": raw}, "cwd: " + raw + " is not a directory"},
		{map[string]any{"program": "no-such-program-anywhere"}, "no-such-program-anywhere"},
		{map[string]any{"program": "/bin/sh", "transcript_max_chars": -1}, "transcript_max_chars: must not be negative"},
		{map[string]any{"program": "/bin/sh", "cols": 100000}, "cols: must be between 1 and 10000"},
		{map[string]any{"program": "/bin/sh", "pixel_width": -1}, "pixel_width: must be between 0 and 65535"},
		// An explicit 0 is refused as session.resize refuses it; only an
		// omitted size means 24x80.
		{map[string]any{"program": "/bin/sh", "rows": 0}, "rows: must be between 1 and 10000, got 0"},
		{map[string]any{"program": "/bin/sh", "rows": 24, "cols": 0}, "cols: must be between 1 and 10000, got 0"},
	} {
		e := c.callErr("session.create", tt.params)
		require.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
		require.Contains(t, e.Message, tt.msg)
	}
	e = c.callErr("session.resize", map[string]any{"session": id, "rows": 0, "cols": 80})
	require.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	require.Contains(t, e.Message, "rows: must be between 1 and 10000, got 0")
}

// TestSnapshotScrollback: session.snapshot adds the rows that scrolled off
// the top when asked (redacted like the screen), and session.create bounds
// them.
func TestSnapshotScrollback(t *testing.T) {
	srv := newServer(t, Options{})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	id := c.create(map[string]any{
		"program": "/bin/sh", "args": []string{"-c", `for i in 1 2 3 4 5 6 7 8; do echo "row $i"; done; echo "API_KEY=sk-abcdefghijklmnopqrstuvwxyz"; seq 9 12; echo done; sleep 30`},
		"rows": 3, "cols": 40, "scrollback": 5,
	})
	c.wait(id, containsText("done"))

	var plain map[string]any
	c.do("session.snapshot", map[string]any{"session": id}, &plain)
	require.NotContains(t, plain, "scrollback", "only when asked")

	var snap struct {
		PlainText  string   `json:"plain_text"`
		Scrollback []string `json:"scrollback"`
	}
	c.do("session.snapshot", map[string]any{"session": id, "scrollback": true}, &snap)
	require.Equal(t, "12\ndone", snap.PlainText)
	require.Len(t, snap.Scrollback, 5, "bounded by session.create's scrollback")
	require.Equal(t, []string{"row 8", snap.Scrollback[1], "9", "10", "11"}, snap.Scrollback)
	require.NotContains(t, snap.Scrollback[1], "sk-abcdefghijklmnopqrstuvwxyz", "redacted")
	require.Contains(t, snap.Scrollback[1], "API_KEY=")

	c.do("session.snapshot", map[string]any{"session": id, "scrollback": true, "redact": false}, &snap)
	require.Equal(t, "API_KEY=sk-abcdefghijklmnopqrstuvwxyz", snap.Scrollback[1])

	e := c.callErr("session.snapshot", map[string]any{"session": id, "scrollback": "yes"})
	require.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
}

// TestSessionCreateEngine: session.create picks the terminal emulator, the
// server's default (serve --engine) otherwise; an unknown one is invalid
// params.
func TestSessionCreateEngine(t *testing.T) {
	srv := newServer(t, Options{Engine: ptywright.EngineXVT})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	// Without mode 2027, vtcore counts "❤️" as 1 column, x/vt as 2: the
	// cursor column tells the engines apart.
	script := `printf 'a\342\235\244\357\270\217b'; sleep 30`
	for _, tt := range []struct {
		engine string
		col    int
	}{{"", 4}, {"xvt", 4}, {"vtcore", 3}} {
		params := map[string]any{"program": "/bin/sh", "args": []string{"-c", script}}
		if tt.engine != "" {
			params["engine"] = tt.engine
		}
		id := c.create(params)
		res := c.wait(id, containsText("b"))
		require.Equal(t, tt.col, res.Snapshot.Cursor.Col, "engine %q", tt.engine)
	}
	e := c.callErr("session.create", map[string]any{"program": "/bin/sh", "engine": "xterm"})
	require.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	require.Contains(t, e.Message, `engine: must be "vtcore" or "xvt", got "xterm"`)
}

func TestReadsRedact(t *testing.T) {
	srv := newServer(t, Options{})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	id := c.sh(`echo "API_KEY=sk-abcdefghijklmnopqrstuvwxyz pw hunter2"; sleep 30`)
	c.wait(id, containsText("hunter2"))

	snapshot := func(params map[string]any) snapshotResult {
		params["session"] = id
		var s snapshotResult
		c.do("session.snapshot", params, &s)
		var cells strings.Builder
		for _, cell := range s.Cells {
			if cell.Row == 0 {
				cells.WriteString(cell.Text)
			}
		}
		// Cells keep their geometry: the replacement is padded with '*'
		// to the secret's width.
		if strings.Contains(s.PlainText, "sk-abc") {
			require.Contains(t, cells.String(), "sk-abc")
		} else {
			require.NotContains(t, cells.String(), "sk-abc", "cells are redacted like the text")
		}
		return s
	}
	transcript := func(params map[string]any) string {
		params["session"] = id
		var tr transcriptResult
		c.do("session.transcript", params, &tr)
		return tr.Text
	}

	require.Contains(t, snapshot(map[string]any{}).PlainText, "API_KEY=[REDACTED] pw hunter2")
	require.Contains(t, transcript(map[string]any{}), "API_KEY=[REDACTED] pw hunter2")

	raw := map[string]any{"redact": false}
	require.Contains(t, snapshot(raw).PlainText, "API_KEY=sk-abcdefghijklmnopqrstuvwxyz pw hunter2")
	require.Contains(t, transcript(map[string]any{"redact": false}), "sk-abcdefghijklmnopqrstuvwxyz")

	// enabled:false inside the object is forced to true: the object only
	// adds rules, the top-level flag decides.
	extra := func() map[string]any {
		return map[string]any{"redaction": map[string]any{"enabled": false, "replacement": "###", "extra_literals": []string{"hunter2"}}}
	}
	require.Contains(t, snapshot(extra()).PlainText, "API_KEY=### pw ###")
	require.Contains(t, transcript(extra()), "API_KEY=### pw ###")
	off := extra()
	off["redact"] = false
	require.Contains(t, transcript(off), "sk-abcdefghijklmnopqrstuvwxyz pw hunter2")

	e := c.callErr("session.snapshot", map[string]any{"session": id, "redaction": map[string]any{"enabled": true, "extra_regexes": []string{"("}}})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "redaction.extra_regexes[0]")
}

// anchorPredicates is a PredicateRegistry with one plugin, "test", whose
// predicate "has_anchor" matches when the screen contains params.anchor.
type anchorPredicates struct{}

func (anchorPredicates) EvalPredicate(_ context.Context, plugin, predicate string, in contract.PredicateInput) (contract.PredicateOutcome, error) {
	if plugin != "test" || predicate != "has_anchor" {
		return contract.PredicateOutcome{}, fmt.Errorf("%w: unknown predicate %s.%s", ptywright.ErrInvalidMatcher, plugin, predicate)
	}
	var p struct{ Anchor string }
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return contract.PredicateOutcome{}, err
	}
	if !strings.Contains(in.Screen, p.Anchor) {
		return contract.PredicateOutcome{}, nil
	}
	return contract.PredicateOutcome{Matched: true, Evidence: map[string]any{"sequence": in.Sequence}, Capture: &p.Anchor}, nil
}

func TestLuaMatchersUseTheBoundRegistry(t *testing.T) {
	srv := newServer(t, Options{Predicates: anchorPredicates{}})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	var caps Capabilities
	c.do("server.capabilities", nil, &caps)
	require.True(t, caps.EmbeddedLua)

	id := c.sh("sleep 0.1; echo anchor-ready; sleep 30")
	lua := func(predicate string) map[string]any {
		return map[string]any{"type": "lua", "value": map[string]any{"plugin": "test", "predicate": predicate, "params": map[string]any{"anchor": "anchor-ready"}}}
	}
	res := c.wait(id, lua("has_anchor"))
	require.Equal(t, ptywright.MatchLua, res.Outcome.Kind)
	require.Equal(t, "test", res.Outcome.Plugin)
	require.Equal(t, "has_anchor", res.Outcome.Predicate)
	require.Equal(t, "anchor-ready", *res.Outcome.Capture)

	e := c.callErr("session.wait", map[string]any{"session": id, "matcher": lua("nope")})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "unknown predicate test.nope")
}

func TestSessionInputActions(t *testing.T) {
	srv := newServer(t, Options{})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)
	id := c.sh(`stty -echo; printf '\033[?2004h'; echo ready; while read l; do echo "line:$l"; done`)
	c.wait(id, containsText("ready"))
	send := func(action map[string]any) {
		c.do("session.input", map[string]any{"session": id, "action": action}, nil)
	}
	send(map[string]any{"type": "text", "value": "typed"})
	send(map[string]any{"type": "key", "value": "enter"})
	c.wait(id, containsText("line:typed"))
	send(map[string]any{"type": "paste", "value": "pasted\n"})
	c.wait(id, containsText("line:pasted"))
	send(map[string]any{"type": "resize", "value": map[string]any{"rows": 10, "cols": 50}})
	var s snapshotResult
	c.do("session.snapshot", map[string]any{"session": id}, &s)
	require.Equal(t, ptywright.Size{Rows: 10, Cols: 50}, s.Size)
	send(map[string]any{"type": "eof"})
	c.wait(id, map[string]any{"type": "process_exited"})

	e := c.callErr("session.input", map[string]any{"session": id, "action": map[string]any{"type": "key", "value": "hyperspace"}})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, "action.value")
	e = c.callErr("session.input", map[string]any{"session": "s99", "action": map[string]any{"type": "eof"}})
	require.Equal(t, int64(CodeInvalidParams), e.Code)
	require.Contains(t, e.Message, `unknown session "s99"`)
}
