//go:build unix

package rpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAdapterSessionMutationsRefused: every session.* mutation of an
// adapter's session is refused with -32602 naming the adapter and the
// adapter method to use instead (here under the readonly plugin, which may
// not type, resize or kill at all), leaving the session as it was; reads
// of it stay open, from the same connection and from another one.
func TestAdapterSessionMutationsRefused(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, readonlyManifest, echoManifest)})
	path := serveUnix(t, srv)
	c := dialUnix(t, path, NDJSON)
	other := dialUnix(t, path, NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "readonly"})
	c.wait(a.Session, containsText("read-only"))
	var before snapshotResult
	c.do("session.snapshot", map[string]any{"session": a.Session}, &before)

	sess := a.Session
	act := func(action map[string]any) map[string]any {
		return map[string]any{"session": sess, "action": action}
	}
	const drive, stop, resize = "use adapter.send or adapter.turn", "use adapter.close", "use adapter.send with an intent of its plugin"
	for _, tt := range []struct {
		name   string
		method string
		params map[string]any
		use    string
	}{
		{"text", "session.input", act(map[string]any{"type": "text", "value": "typed"}), drive},
		{"paste", "session.input", act(map[string]any{"type": "paste", "value": "pasted\n"}), drive},
		{"bracketed_paste", "session.input", act(map[string]any{"type": "bracketed_paste", "value": "pasted"}), drive},
		{"key", "session.input", act(map[string]any{"type": "key", "value": "enter"}), drive},
		{"interrupt", "session.input", act(map[string]any{"type": "interrupt"}), drive},
		{"eof", "session.input", act(map[string]any{"type": "eof"}), drive},
		{"signal", "session.input", act(map[string]any{"type": "signal", "value": "term"}), drive},
		{"mark_transcript", "session.input", act(map[string]any{"type": "mark_transcript", "value": map[string]any{"label": "m"}}), drive},
		{"kill action", "session.input", act(map[string]any{"type": "kill"}), stop},
		{"resize action", "session.input", act(map[string]any{"type": "resize", "value": map[string]any{"rows": 10, "cols": 40}}), resize},
		{"resize", "session.resize", map[string]any{"session": sess, "rows": 10, "cols": 40}, resize},
		{"kill", "session.kill", map[string]any{"session": sess}, stop},
		{"close", "session.close", map[string]any{"session": sess}, "close it with adapter.close"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, cl := range []*client{c, other} {
				e := cl.callErr(tt.method, tt.params)
				requireError(t, e, CodeInvalidParams, "session "+sess+" belongs to adapter "+a.Adapter)
				require.Contains(t, e.Message, tt.use)
			}
		})
	}

	// Nothing reached the program: same screen, same size, still running.
	var after snapshotResult
	other.do("session.snapshot", map[string]any{"session": sess}, &after)
	require.Equal(t, before.PlainText, after.PlainText)
	require.Equal(t, before.Size, after.Size)
	var tr transcriptResult
	other.do("session.transcript", map[string]any{"session": sess}, &tr)
	require.Equal(t, "read-only", strings.TrimSpace(tr.Text), "nothing typed reached cat")
	// No signal reached it: a wait for its exit times out.
	res, rpcErr := other.call("session.wait", map[string]any{"session": sess, "matcher": map[string]any{"type": "process_exited"}, "timeout_ms": 50})
	require.Nil(t, res)
	requireError(t, rpcErr, CodeTimeout, "timed out")
	// The reads: each answers on the adapter's session.
	other.wait(sess, containsText("read-only"))
	var list sessionListResult
	other.do("session.list", nil, &list)
	require.Contains(t, list.Sessions, sess)

	// The way it names is the adapter's, gated by its permissions:
	// readonly may not close.
	requireError(t, c.callErr("adapter.close", map[string]any{"adapter": a.Adapter}), CodePermissionDenied, "session.kill")

	// A session made by session.create is not an adapter's: it takes
	// every mutation.
	id := c.sh("echo plain; cat")
	c.wait(id, containsText("plain"))
	c.do("session.resize", map[string]any{"session": id, "rows": 10, "cols": 40}, nil)
	c.do("session.input", input(id, "typed\r"), nil)
	c.wait(id, containsText("typed"))
	c.do("session.kill", map[string]any{"session": id}, nil)
	c.do("session.close", map[string]any{"session": id}, nil)
}
