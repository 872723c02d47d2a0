//go:build unix

package rpc_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"ptywright/plugins"
	"ptywright/rpc"
)

// Serve one client on a byte stream, as `ptywright serve --stdio` does: the
// requests are read to the end and every response is written before
// ServeConn returns.
func ExampleServer_ServeConn() {
	srv := rpc.NewServer(rpc.Options{})
	defer srv.Close()

	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"session.list"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session.teleport"}` + "\n")
	var out bytes.Buffer
	if err := srv.ServeConn(context.Background(), rpc.Stdio(in, &out), rpc.NDJSON); err != nil {
		fmt.Println(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// Requests run concurrently: responses come in completion order.
	if strings.Contains(lines[0], `"id":2`) {
		lines[0], lines[1] = lines[1], lines[0]
	}
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"sessions":[]}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"method not found: \"session.teleport\" (rpc.discover lists the methods; see docs/protocol.md)"}}
}

// Serve many clients on a Unix socket; they share the sessions.
func ExampleServer_Serve() {
	dir, err := os.MkdirTemp("", "ptw")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ptywright.sock")

	srv := rpc.NewServer(rpc.Options{})
	defer srv.Close()
	l, err := rpc.ListenUnix(path) // owner-only; refuses a live socket
	if err != nil {
		fmt.Println(err)
		return
	}
	go srv.Serve(context.Background(), l)

	conn, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	in := bufio.NewScanner(conn)
	call := func(req string) string {
		fmt.Fprintln(conn, req)
		in.Scan()
		return in.Text()
	}
	fmt.Println(call(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"program":"/bin/sh","args":["-c","printf ready; sleep 5"]}}`))
	resp := call(`{"jsonrpc":"2.0","id":2,"method":"session.wait","params":{"session":"s1","matcher":{"type":"contains_text","value":"ready"},"timeout_ms":5000}}`)
	fmt.Println(strings.Contains(resp, `"matched":true`))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"session":"s1"}}
	// true
}

// Drive a program through a plugin: the server runs adapter.* and plugin.*
// over a plugin registry, here holding the echo test plugin loaded from its
// manifest, as `ptywright serve --plugin` does.
func ExampleOptions_plugins() {
	reg, err := plugins.New(plugins.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Close() // after the server
	if _, err := reg.Load("../testdata/plugins/echo/manifest.toml"); err != nil {
		fmt.Println(err)
		return
	}
	srv := rpc.NewServer(rpc.Options{Plugins: reg})
	defer srv.Close()

	// One request at a time: requests on one connection run concurrently.
	pr, pw := net.Pipe()
	go srv.ServeConn(context.Background(), pr, rpc.NDJSON)
	defer pw.Close()
	in := bufio.NewScanner(pw)
	in.Buffer(nil, rpc.MaxFrameBytes)
	call := func(req string) string {
		fmt.Fprintln(pw, req)
		in.Scan()
		return in.Text()
	}
	fmt.Println(strings.Contains(call(`{"jsonrpc":"2.0","id":1,"method":"adapter.start","params":{"plugin":"echo"}}`), `"adapter":"e1","plugin":"echo","session":"s1"`))
	resp := call(`{"jsonrpc":"2.0","id":2,"method":"adapter.turn","params":{"adapter":"e1","send":{"intent":"send_text","params":{"text":"hi"}},"wait":{"timeout_ms":5000}}}`)
	fmt.Println(strings.Contains(resp, `"state":"echoed"`))
	fmt.Println(call(`{"jsonrpc":"2.0","id":3,"method":"adapter.extract","params":{"adapter":"e1","regex":"(?m)^(h\\w)$"}}`))
	// Output:
	// true
	// true
	// {"jsonrpc":"2.0","id":3,"result":{"matched":true,"text":"hi","method":"tail_regex","searched_chars":5}}
}
