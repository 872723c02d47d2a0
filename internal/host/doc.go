// Package host holds the rules every protocol face of ptywright applies the
// same way before it touches the library: which plugin permission each
// adapter operation needs, how an adapter's program is chosen from its
// manifest's default target, and which start failures are the caller's.
// The JSON-RPC server (rpc) and the MCP server (mcpserver) both build on it,
// so neither holds logic the other needs; each maps the errors here to its
// own wire form.
package host
