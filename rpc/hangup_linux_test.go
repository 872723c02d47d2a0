package rpc

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestKilledClientsReleaseEverything is the dead clients of a crash loop: 50
// clients each queue a 30 s session.wait and die. Ten are processes killed
// with SIGKILL; forty close their socket abruptly, which is what the
// kernel does for a killed process (half of those subscribed to the
// notifications of a session that prints, so they die with unread data
// and the server reads a reset, or is writing to them). Their waits, their
// connections' goroutines and the server's descriptors go within a
// second, not when the waits time out.
func TestKilledClientsReleaseEverything(t *testing.T) {
	const (
		killed = 10
		closed = 40
	)
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)
	setup := dialUnix(t, path, NDJSON)
	id := setup.sh("while :; do echo tick; sleep 0.05; done")
	setup.wait(id, containsText("tick"))

	fds, conns := openFDs(t), tuitest.InStacks("rpc.(*conn).serve")
	wait := []byte(`{"jsonrpc":"2.0","id":1,"method":"session.wait","params":{"session":"` + id + `","matcher":{"type":"contains_text","value":"never"},"timeout_ms":30000}}` + "\n")
	var ncs []net.Conn
	for i := range closed {
		nc, err := net.Dial("unix", path)
		require.NoError(t, err)
		ncs = append(ncs, nc)
		if i%2 == 0 {
			_, err = nc.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"server.set_notifications","params":{"enabled":true}}` + "\n"))
			require.NoError(t, err)
		}
		_, err = nc.Write(wait)
		require.NoError(t, err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	var cmds []*exec.Cmd
	for range killed {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childModeEnv+"=waitclient", "PTYWRIGHT_RPC_TEST_SOCKET="+path, "PTYWRIGHT_RPC_TEST_SESSION="+id)
		stdin, err := cmd.StdinPipe()
		require.NoError(t, err)
		t.Cleanup(func() { _ = stdin.Close() })
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill() // Best effort: the test failed first.
				_ = cmd.Wait()
			}
		})
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "sent\n", line)
		cmds = append(cmds, cmd)
	}
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", closed+killed)

	start := time.Now()
	for _, nc := range ncs {
		require.NoError(t, nc.Close())
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait() // killed: the error says so
	}
	deadline := start.Add(5 * time.Second)
	for {
		waits := tuitest.InStacks("ptywright.(*Session).Wait")
		handlers := tuitest.InStacks("rpc.(*conn).serve") - conns
		open := openFDs(t) - fds
		if waits == 0 && handlers <= 0 && open <= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %d waits, %d connection handlers and %d descriptors still alive", time.Since(start), waits, handlers, open)
		}
		time.Sleep(2 * time.Millisecond)
	}
	elapsed := time.Since(start)
	t.Logf("%d dead clients: waits, connections and descriptors released in %s", closed+killed, elapsed.Round(time.Millisecond))

	// The server and the living client are unaffected.
	setup.wait(id, containsText("tick"))
}

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		// The directory's own descriptor, open while it is read, is
		// counted every time alike.
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}
