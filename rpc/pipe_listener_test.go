package rpc

import (
	"context"
	"net"
	"sync"
)

// pipeListener is an in-memory net.Listener whose connections are
// net.Pipe pairs: a test can serve a Server on it and Dial clients without a
// socket file.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// newPipeListener returns a listener ready for Dial and Accept.
func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Dial connects to the listener; it blocks until Accept takes the
// connection, ctx ends or the listener closes.
func (l *pipeListener) Dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
		_ = server.Close() // Best effort: never handed out.
		_ = client.Close()
		return nil, ctx.Err()
	}
	_ = server.Close() // Best effort: never handed out.
	_ = client.Close()
	return nil, net.ErrClosed
}

// Accept waits for the next Dial.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial fail with net.ErrClosed. Connections already
// made stay open.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr returns a placeholder address.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

var _ net.Listener = (*pipeListener)(nil)
