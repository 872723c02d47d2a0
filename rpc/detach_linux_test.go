//go:build linux

package rpc

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// buildDaemonize builds ../testdata/daemonize, which double-forks a daemon
// out of its session and process group and prints DAEMON=<pid>.
func buildDaemonize(t testing.TB) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "daemonize")
	b, err := exec.Command("go", "build", "-o", out, "../testdata/daemonize").CombinedOutput()
	require.NoError(t, err, "go build ../testdata/daemonize: %s", b)
	return out
}

// daemonProc is a daemon identified by pid and start time.
type daemonProc struct {
	pid   int
	start string
}

func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return nil
	}
	return f
}

func (d daemonProc) running() bool {
	f := statFields(d.pid)
	return f != nil && f[19] == d.start && f[0] != "Z" && f[0] != "X"
}

func (d daemonProc) kill(t testing.TB) {
	if !d.running() {
		return
	}
	_ = syscall.Kill(d.pid, syscall.SIGKILL) // The test's own daemon.
	deadline := time.Now().Add(patience)
	for d.running() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	require.False(t, d.running(), "daemon %d survived SIGKILL", d.pid)
}

var daemonLine = regexp.MustCompile(`DAEMON=(\d+)`)

// daemonOf waits for session's daemon to report and returns it.
func (c *client) daemonOf(session string) daemonProc {
	c.t.Helper()
	res := c.wait(session, containsText("LAUNCHED"))
	m := daemonLine.FindStringSubmatch(res.Snapshot.PlainText)
	require.NotNil(c.t, m, "screen %q", res.Snapshot.PlainText)
	pid, _ := strconv.Atoi(m[1])
	f := statFields(pid)
	require.NotNil(c.t, f, "daemon %d is not running", pid)
	d := daemonProc{pid: pid, start: f[19]}
	c.t.Cleanup(func() { d.kill(c.t) })
	return d
}

// TestCloseEndsDetachedDaemons: session.close and adapter.close end the
// daemons their programs detached, and no other session's; keep_detached
// leaves them running.
func TestCloseEndsDetachedDaemons(t *testing.T) {
	bin := buildDaemonize(t)
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := newClient(t, serveStdio(t, srv, NDJSON), NDJSON)

	s1 := c.create(map[string]any{"program": bin})
	d1 := c.daemonOf(s1)
	kept := c.create(map[string]any{"program": bin, "keep_detached": true})
	dKept := c.daemonOf(kept)
	c.do("session.close", map[string]any{"session": s1}, nil)
	require.False(t, d1.running(), "session.close left daemon %d running", d1.pid)
	require.True(t, dKept.running(), "another session's daemon must survive")
	c.do("session.close", map[string]any{"session": kept}, nil)
	require.True(t, dKept.running(), "keep_detached: the daemon must outlive session.close")
	dKept.kill(t)

	a := c.startAdapter(map[string]any{"plugin": "echo", "program": bin})
	da := c.daemonOf(a.Session)
	ak := c.startAdapter(map[string]any{"plugin": "echo", "program": bin, "keep_detached": true})
	dak := c.daemonOf(ak.Session)
	c.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
	require.False(t, da.running(), "adapter.close left daemon %d running", da.pid)
	c.do("adapter.close", map[string]any{"adapter": ak.Adapter}, nil)
	require.True(t, dak.running(), "keep_detached: the daemon must outlive adapter.close")
	dak.kill(t)

}

// TestServerExitEndsDetachedDaemons: Server.Close (ptywright serve's exit)
// ends the daemons of every session and adapter.
func TestServerExitEndsDetachedDaemons(t *testing.T) {
	bin := buildDaemonize(t)
	srv2 := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c2 := dialUnix(t, serveUnix(t, srv2), NDJSON)
	last := c2.create(map[string]any{"program": bin, "args": []string{"-exit"}})
	dl := c2.daemonOf(last)
	la := c2.startAdapter(map[string]any{"plugin": "echo", "program": bin})
	dla := c2.daemonOf(la.Session)
	require.NoError(t, srv2.Close())
	require.False(t, dl.running(), "the server's exit left session daemon %d running", dl.pid)
	require.False(t, dla.running(), "the server's exit left adapter daemon %d running", dla.pid)
}
