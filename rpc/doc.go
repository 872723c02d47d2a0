// Package rpc serves ptywright's JSON-RPC 2.0 protocol (see the JSON-RPC
// reference in the spec) over a byte stream: stdio, a Unix socket shared by
// many clients, or anything else that is an io.ReadWriteCloser.
//
// It adapts the root package and holds no terminal logic of its own. One
// concern per file:
//
//   - frame.go: framing (NDJSON lines, LSP Content-Length frames), bounded
//     at MaxFrameBytes, resynchronising after bad frames where it can;
//   - wire.go, messages.go: the JSON-RPC objects, requests and batches;
//   - errors.go: error codes, matched with errors.Is and kept through %w,
//     and the mapping of the root package's sentinels to them;
//   - params.go: strict params decoding that names the offending field;
//   - conn.go: one connection: concurrent requests, one writer;
//   - notify.go: per-connection notification subscriptions, coalesced;
//   - registry.go: the sessions all connections share, and their watchers;
//   - serve.go, socket*.go: the Server, its transports and Close;
//   - methods.go, session_methods.go: the method table and handlers.
//
// A server on stdio:
//
//	srv := rpc.NewServer(rpc.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
//	defer srv.Close()
//	err := srv.ServeConn(ctx, rpc.Stdio(os.Stdin, os.Stdout), rpc.NDJSON)
//
// and on the per-user socket:
//
//	path, err := rpc.DefaultSocketPath()
//	...
//	err = srv.ListenUnix(ctx, path) // until ctx ends or srv.Close
package rpc
