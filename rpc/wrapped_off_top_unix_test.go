//go:build unix

package rpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretWrappedOffTheTopIsRedacted: a secret the terminal soft-wrapped
// onto two rows, whose first row has since scrolled off the top, so that
// the screen's row 0 is the secret's second row. session.snapshot (with
// and without scrollback) and session.wait hide it: the screen is redacted
// with the scrollback rows it goes on from (they were redacted apart, and
// row 0 came out as it is).
func TestSecretWrappedOffTheTopIsRedacted(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	secret := "sk-ant-api03-" + redactionBody + "AA" // with "key: ", 96 columns: wraps at 80
	// 24 rows: after 22 more lines and "end-mark", the key's first row is
	// the newest scrollback row and its second row is row 0.
	id := c.sh(`printf 'key: ` + secret + `\n'; i=0; while [ $i -lt 22 ]; do echo after$i; i=$((i+1)); done; printf end-mark; sleep 30`)
	w := c.wait(id, containsText("end-mark"))
	var raw struct {
		PlainText string `json:"plain_text"`
	}
	c.do("session.snapshot", map[string]any{"session": id, "redact": false}, &raw)
	require.Equal(t, "4sD6fG8hJ0kLAA\nafter0", raw.PlainText[:21], "row 0 is the secret's second row")

	assert.NotContains(t, w.Snapshot.PlainText, "4sD6fG8hJ0kL", "session.wait's snapshot shows the end of a secret wrapped off the top")
	for _, sb := range []bool{false, true} {
		var snap struct {
			PlainText  string   `json:"plain_text"`
			Scrollback []string `json:"scrollback"`
		}
		c.do("session.snapshot", map[string]any{"session": id, "scrollback": sb}, &snap)
		assert.NotContains(t, snap.PlainText, "4sD6fG8hJ0kL", "session.snapshot (scrollback %v) shows the end of a secret wrapped off the top", sb)
		for _, row := range snap.Scrollback {
			requireNoPiece(t, row, secret)
		}
	}
}
