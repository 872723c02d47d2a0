package rpc

import (
	"bufio"
	"context"
	"errors"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPipeListener(t *testing.T) {
	srv := NewServer(Options{Logger: testLogger(t), Framing: LSP})
	l := newPipeListener()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()

	for range 2 { // connections are independent
		conn, err := l.Dial(context.Background())
		require.NoError(t, err)
		w := LSP.Writer(conn)
		r := LSP.Reader(bufio.NewReader(conn))
		require.NoError(t, w.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.list"}`)))
		frame, err := r.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"sessions":[]}}`, string(frame))
		require.NoError(t, conn.Close())
	}

	require.NoError(t, srv.Close())
	require.ErrorIs(t, <-served, ErrServerClosed)
	_, err := l.Dial(context.Background())
	require.True(t, errors.Is(err, net.ErrClosed), "dial after close: %v", err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = newPipeListener().Dial(ctx)
	require.ErrorIs(t, err, context.Canceled)
}
