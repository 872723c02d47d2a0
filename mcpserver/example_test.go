package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright/mcpserver"
)

// A client (here the SDK's own, over its in-memory transport; in practice
// an agent client running `ptywright mcp`) starts a program and waits for
// its output. When the client disconnects, Serve closes the session.
func ExampleServer_Serve() {
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- mcpserver.New(mcpserver.Options{}).Serve(ctx, serverT) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_start", Arguments: map[string]any{
		"program": "sh", "args": []string{"-c", "echo hello from the pty; exec cat"},
	}})
	if err != nil || res.IsError {
		log.Fatal(err, res)
	}
	session := res.StructuredContent.(map[string]any)["session"]
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "session_wait", Arguments: map[string]any{
		"session": session, "text": "hello",
	}})
	if err != nil || res.IsError {
		log.Fatal(err, res)
	}
	out := res.StructuredContent.(map[string]any)
	fmt.Println("matched:", out["matched"])
	fmt.Println(out["screen"])

	_ = cs.Close()
	fmt.Println("serve:", <-done)
	// Output:
	// matched: true
	// hello from the pty
	// serve: <nil>
}
