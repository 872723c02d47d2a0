//go:build unix

package rpc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailedCreateLeavesNoFileToBlockTheRetry: ptywright.Start creates
// raw_transcript_path (and record_path) before it starts the program; when
// the program cannot be started, the new file is removed, or the caller
// who fixes the program name and retries with the same path would be
// refused (the file exists). A file appended to is not Start's to remove.
func TestFailedCreateLeavesNoFileToBlockTheRetry(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	dir := t.TempDir()
	for _, field := range []string{"raw_transcript_path", "record_path"} {
		path := filepath.Join(dir, field+".out")
		e := c.callErr("session.create", map[string]any{"program": "/nonexistent/typo", field: path})
		assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
		_, statErr := os.Stat(path)
		assert.ErrorIs(t, statErr, os.ErrNotExist, "%s: the failed session.create left %s behind", field, path)

		_, rpcErr := c.call("session.create", map[string]any{"program": "/bin/sh", "args": []string{"-c", "echo ok; sleep 30"}, field: path})
		assert.Nil(t, rpcErr, "%s: the corrected retry is refused: %v", field, rpcErr)
	}

	kept := filepath.Join(dir, "appended.out")
	require.NoError(t, os.WriteFile(kept, []byte("before\n"), 0o600))
	e := c.callErr("session.create", map[string]any{"program": "/nonexistent/typo", "raw_transcript_path": kept, "raw_transcript_append": true})
	assert.Equal(t, int64(CodeInvalidParams), e.Code, e.Message)
	data, err := os.ReadFile(kept)
	require.NoError(t, err, "a failed start removed the file it was to append to")
	assert.Equal(t, "before\n", string(data))
}
