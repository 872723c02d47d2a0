//go:build linux

package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// daemonOf waits for session's daemon to report and returns it.
func (c *client) daemonOf(session string) tuitest.Daemon {
	c.t.Helper()
	res := c.wait(session, containsText("LAUNCHED"))
	d := tuitest.ParseDaemon(c.t, res.Snapshot.PlainText)
	c.t.Cleanup(func() { d.Kill(c.t) })
	return d
}

// TestCloseEndsDetachedDaemons: session.close and adapter.close end the
// daemons their programs detached, and no other session's; keep_detached
// leaves them running.
func TestCloseEndsDetachedDaemons(t *testing.T) {
	bin := tuitest.BuildDaemonize(t)
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)

	s1 := c.create(map[string]any{"program": bin})
	d1 := c.daemonOf(s1)
	kept := c.create(map[string]any{"program": bin, "keep_detached": true})
	dKept := c.daemonOf(kept)
	c.do("session.close", map[string]any{"session": s1}, nil)
	require.False(t, d1.Running(), "session.close left daemon %d running", d1.Pid)
	require.True(t, dKept.Running(), "another session's daemon must survive")
	c.do("session.close", map[string]any{"session": kept}, nil)
	require.True(t, dKept.Running(), "keep_detached: the daemon must outlive session.close")
	dKept.Kill(t)

	a := c.startAdapter(map[string]any{"plugin": "echo", "program": bin})
	da := c.daemonOf(a.Session)
	ak := c.startAdapter(map[string]any{"plugin": "echo", "program": bin, "keep_detached": true})
	dak := c.daemonOf(ak.Session)
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	require.False(t, da.Running(), "adapter.close left daemon %d running", da.Pid)
	c.do("adapter.close", map[string]any{"adapter": ak.Adapter}, nil)
	require.True(t, dak.Running(), "keep_detached: the daemon must outlive adapter.close")
	dak.Kill(t)

}

// TestServerExitEndsDetachedDaemons: Server.Close (ptywright serve's exit)
// ends the daemons of every session and adapter.
func TestServerExitEndsDetachedDaemons(t *testing.T) {
	bin := tuitest.BuildDaemonize(t)
	srv2 := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c2 := dialUnix(t, serveUnix(t, srv2), NDJSON)
	last := c2.create(map[string]any{"program": bin, "args": []string{"-exit"}})
	dl := c2.daemonOf(last)
	la := c2.startAdapter(map[string]any{"plugin": "echo", "program": bin})
	dla := c2.daemonOf(la.Session)
	require.NoError(t, srv2.Close())
	require.False(t, dl.Running(), "the server's exit left session daemon %d running", dl.Pid)
	require.False(t, dla.Running(), "the server's exit left adapter daemon %d running", dla.Pid)
}
