//go:build unix

package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWaitCaptureHidesAWrappedSecret: session.wait's snapshot hides a
// secret the terminal soft-wrapped on both its rows, and so does a
// screen_regex capture spanning those rows (it was redacted as plain text,
// which returned the second row).
func TestWaitCaptureHidesAWrappedSecret(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	secret := "sk-ant-api03-" + redactionBody + "AA" // with "key: ", 96 columns: wraps at 80
	id := c.sh("printf 'key: " + secret + "\\nend-mark\\n'; sleep 30")
	var res struct {
		Matched  bool            `json:"matched"`
		Snapshot json.RawMessage `json:"snapshot"`
		Outcome  json.RawMessage `json:"outcome"`
	}
	c.do("session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "screen_regex", "value": `(?s)key: (.*)end-mark`}, "timeout_ms": patience.Milliseconds()}, &res)
	require.True(t, res.Matched)
	requireNoPiece(t, string(res.Snapshot), secret)
	assert.NotContains(t, string(res.Outcome), "4sD6fG8hJ0kL", "session.wait's capture shows the wrapped secret's second row: %s", res.Outcome)
}
