//go:build unix

package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRelativeProgramIsFoundInCwd: session.create {"program":
// "./hello.sh", "cwd": dir} runs dir/hello.sh, as os/exec evaluates a
// relative path against Dir: an agent runs "./gradlew" in its repository.
// It was looked up in the server's own working directory ("no such file",
// or worse, the server directory's file of that name). A relative path
// with no such file in cwd is a clear invalid-params error.
func TestRelativeProgramIsFoundInCwd(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("#!/bin/sh\necho from-cwd; sleep 30\n"), 0o755))
	res, rpcErr := c.call("session.create", map[string]any{"program": "./hello.sh", "cwd": dir})
	require.Nil(t, rpcErr, "./hello.sh exists in cwd %s: %v", dir, rpcErr)
	var created sessionResult
	require.NoError(t, json.Unmarshal(res, &created))
	c.wait(created.Session, containsText("from-cwd"))

	e := c.callErr("session.create", map[string]any{"program": "./hello.sh", "cwd": t.TempDir()})
	require.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	require.Contains(t, e.Message, "./hello.sh")
}
