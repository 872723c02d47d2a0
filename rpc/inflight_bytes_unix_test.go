//go:build unix

package rpc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// TestInFlightBytesAreBounded: a client that keeps requests with huge
// params running (waits with huge matchers) cannot make the server hold
// more than the budget of them: it stops reading from that connection
// until one ends, serves the others meanwhile, and then reads on, in
// order.
func TestInFlightBytesAreBounded(t *testing.T) {
	srv := newServer(t, Options{})
	srv.maxInFlightBytes = 1 << 20
	path := serveUnix(t, srv)
	c := dialUnix(t, path, NDJSON)
	id := c.sh("sleep 30") // what is typed shows through the terminal's echo
	junk := strings.Repeat("x", 300<<10)
	wait := func(text string) <-chan message {
		return c.start("session.wait", map[string]any{"session": id, "timeout_ms": 60_000,
			"matcher": map[string]any{"type": "any", "value": []any{containsText(text), containsText(junk)}}})
	}
	first := wait("FIRST")
	wait("never printed")
	wait("never printed")
	fourth := wait("FOURTH") // 1.2 MB with the three before it: read, then held back
	list := c.start("session.list", nil)
	tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 3)
	tuitest.BlockedIn(t, "rpc.(*byteBudget).acquire", 1)
	require.Equal(t, 3, tuitest.InStacks("ptywright.(*Session).Wait"), "three waits fit the budget, the fourth waits for room")

	other := dialUnix(t, path, NDJSON)
	other.do("session.input", map[string]any{"session": id, "action": map[string]any{"type": "text", "value": "FIRST"}}, nil)
	require.Nil(t, c.await(first).Error)
	require.Nil(t, c.await(list).Error, "read once the first wait made room")
	other.do("session.input", map[string]any{"session": id, "action": map[string]any{"type": "text", "value": " FOURTH"}}, nil)
	require.Nil(t, c.await(fourth).Error)
}
