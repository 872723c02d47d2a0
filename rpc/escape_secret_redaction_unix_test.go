//go:build unix

package rpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretBrokenByEscapeRedacted: a program prints a key whole, but with
// a colour change (SGR) or a typed-and-erased character ("X\b", what a line
// editor echoes for a corrected typo) in its middle. The screen shows the
// key whole, and session.snapshot hides it; the default-redacted
// session.transcript and the session.output notifications, which carry the
// raw stream, hide all of it too: secrets are found on the text as the
// terminal shows it (internal/secrets ThroughEscapes) and the raw span,
// escape included, is replaced. The rule: a secret never leaves the
// library unredacted, whichever read or notification carries it.
func TestSecretBrokenByEscapeRedacted(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	head, tail := redactionBody[:30], redactionBody[30:]+"AA"
	secret := "sk-ant-api03-" + head + tail
	for name, script := range map[string]string{
		"sgr in the key":         `printf 'KEY sk-ant-api03-` + head + `\033[1m` + tail + `\033[0m\n'; echo after-secret; sleep 30`,
		"erased typo in the key": `printf 'KEY sk-ant-api03-` + head + `X\b` + tail + `\n'; echo after-secret; sleep 30`,
	} {
		id := c.sh(script)
		output := strings.Join(outputOf(t, c, id, "after-secret"), "")
		var raw struct {
			PlainText string `json:"plain_text"`
		}
		c.do("session.snapshot", map[string]any{"session": id, "redact": false}, &raw)
		require.Contains(t, strings.ReplaceAll(raw.PlainText, "\n", ""), secret, "%s: the screen shows the key whole", name)
		var snap struct {
			PlainText string `json:"plain_text"`
		}
		c.do("session.snapshot", map[string]any{"session": id}, &snap)
		assert.NotContains(t, snap.PlainText, tail[:12], "%s: the snapshot hides it", name)

		var tr transcriptResult
		c.do("session.transcript", map[string]any{"session": id}, &tr)
		assert.NotContains(t, tr.Text, tail[:12], "%s: session.transcript (redacted by default) shows the key's tail: %q", name, tr.Text)
		assert.NotContains(t, output, tail[:12], "%s: session.output shows the key's tail: %q", name, output)
		c.do("session.close", map[string]any{"session": id}, nil)
	}
}
