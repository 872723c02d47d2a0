//go:build unix

package rpc

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

func TestListenUnixIsOwnerOnly(t *testing.T) {
	path := filepath.Join(socketDir(t), "new", "dir", "ptywright.sock")
	l, err := ListenUnix(path)
	require.NoError(t, err)
	defer l.Close()

	dir, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), dir.Mode().Perm())
	parent, err := os.Stat(filepath.Dir(filepath.Dir(path)))
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), parent.Mode().Perm())

	sock, err := os.Lstat(path)
	require.NoError(t, err)
	require.NotZero(t, sock.Mode()&fs.ModeSocket)
	require.Equal(t, fs.FileMode(0o600), sock.Mode().Perm())
}

func TestListenUnixReplacesAStaleSocket(t *testing.T) {
	path := filepath.Join(socketDir(t), "ptywright.sock")
	// A server that died without cleaning up leaves its socket file.
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	require.NoError(t, err)
	dead.SetUnlinkOnClose(false)
	require.NoError(t, dead.Close())
	_, err = os.Lstat(path)
	require.NoError(t, err, "the stale socket file is there")

	srv := newServer(t, Options{})
	l, err := ListenUnix(path)
	require.NoError(t, err)
	go func() { _ = srv.Serve(context.Background(), l) }()
	c := dialUnix(t, path, NDJSON)
	c.do("session.list", nil, nil)
}

func TestListenUnixRefusesALiveSocket(t *testing.T) {
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)

	_, err := ListenUnix(path)
	require.ErrorIs(t, err, ErrSocketInUse)
	require.Contains(t, err.Error(), path)

	// The live server still answers on its socket.
	c := dialUnix(t, path, NDJSON)
	c.do("session.list", nil, nil)
}

func TestListenUnixRefusesOtherFiles(t *testing.T) {
	dir := socketDir(t)
	regular := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(regular, []byte("keep me"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(regular, link))
	sub := filepath.Join(dir, "subdir")
	require.NoError(t, os.Mkdir(sub, 0o700))

	for _, path := range []string{regular, link, sub} {
		_, err := ListenUnix(path)
		require.ErrorIs(t, err, ErrNotASocket, path)
		require.Contains(t, err.Error(), path)
	}
	b, err := os.ReadFile(regular)
	require.NoError(t, err)
	require.Equal(t, "keep me", string(b))
}

func TestCloseRemovesTheSocket(t *testing.T) {
	srv := NewServer(Options{Logger: testLogger(t)})
	path := filepath.Join(socketDir(t), "ptywright.sock")
	done := make(chan error, 1)
	go func() { done <- srv.ListenUnix(context.Background(), path) }()
	c := dialUnixRetry(t, path)
	c.do("session.list", nil, nil)
	require.NoError(t, srv.Close())
	require.ErrorIs(t, <-done, ErrServerClosed)
	_, err := os.Lstat(path)
	require.ErrorIs(t, err, fs.ErrNotExist)

	// Cancelling the context stops serving and removes it too.
	srv2 := NewServer(Options{Logger: testLogger(t)})
	defer srv2.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- srv2.ListenUnix(ctx, path) }()
	dialUnixRetry(t, path).do("session.list", nil, nil)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	_, err = os.Lstat(path)
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// dialUnixRetry connects once the server goroutine is accepting.
func dialUnixRetry(t *testing.T, path string) *client {
	t.Helper()
	tuitest.BlockedIn(t, "net.(*UnixListener).Accept", 1)
	nc, err := net.Dial("unix", path)
	require.NoError(t, err)
	return newClient(t, nc, NDJSON)
}

func TestDefaultSocketPath(t *testing.T) {
	t.Setenv(homeEnv, "/srv/ptw")
	p, err := DefaultSocketPath()
	require.NoError(t, err)
	require.Equal(t, "/srv/ptw/socket", p)

	t.Setenv(homeEnv, "")
	t.Setenv("HOME", "/home/someone")
	p, err = DefaultSocketPath()
	require.NoError(t, err)
	require.Equal(t, "/home/someone/.ptywright/socket", p)
}
