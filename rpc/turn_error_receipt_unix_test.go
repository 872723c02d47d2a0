//go:build unix

package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adapter.turn is send-then-wait. When the send is delivered and then the
// wait leg fails (its timeout, or adapter.cancel_wait), the error's data
// carries the send's receipt beside the wait's evidence: a client that
// retries the turn would otherwise type its prompt twice.

// turnErrorReceipt returns the receipt member of an error's data, nil if
// there is none.
func turnErrorReceipt(t *testing.T, e *Error) map[string]any {
	t.Helper()
	if len(e.Data) == 0 {
		return nil
	}
	var data map[string]any
	require.NoError(t, json.Unmarshal(e.Data, &data))
	rc, _ := data["receipt"].(map[string]any)
	return rc
}

// TestTurnTimeoutCarriesDeliveredReceipt: the wait leg times out after the
// text was typed and echoed.
func TestTurnTimeoutCarriesDeliveredReceipt(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})

	e := c.callErr("adapter.turn", map[string]any{
		"adapter": a.Adapter,
		"send":    map[string]any{"intent": "send_text", "params": map[string]any{"text": "delivered"}},
		"wait":    map[string]any{"intent": "wait_echo_matcher", "params": map[string]any{"text": "never-shown"}, "timeout_ms": 300},
	})
	require.Equal(t, int64(CodeTimeout), e.Code, e.Message)
	// The send was delivered: the program echoed it.
	var tr transcriptResult
	c.do("adapter.transcript", map[string]any{"adapter": a.Adapter}, &tr)
	require.GreaterOrEqual(t, strings.Count(tr.Text, "delivered"), 2, "the send was typed and echoed: %q", tr.Text)

	rc := turnErrorReceipt(t, e)
	if assert.NotNil(t, rc, "adapter.turn's timeout hides that its send was delivered; error data: %s", e.Data) {
		assert.Equal(t, "send_text", rc["intent"])
		assert.Equal(t, "confirmed", rc["effect"])
	}
	var data map[string]any
	require.NoError(t, json.Unmarshal(e.Data, &data))
	assert.Contains(t, data, "snapshot", "the timeout's evidence is kept")
	assert.Contains(t, data, "transcript_tail", "the timeout's evidence is kept")
}

// TestTurnCancelCarriesDeliveredReceipt: another connection cancels the
// turn (adapter.cancel_wait) the moment it sees the text echoed, as an
// eager client does; the -32005 says nothing of the delivered send.
func TestTurnCancelCarriesDeliveredReceipt(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	path := serveUnix(t, srv)
	c, watcher := dialUnix(t, path, NDJSON), dialUnix(t, path, NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})
	watcher.do("server.set_notifications", map[string]any{"enabled": true, "adapters": []string{a.Adapter}}, nil)

	turn := c.start("adapter.turn", map[string]any{
		"adapter": a.Adapter,
		"send":    map[string]any{"intent": "send_text", "params": map[string]any{"text": "typed-then-cancelled"}},
		"wait":    map[string]any{"intent": "wait_echo_matcher", "params": map[string]any{"text": "never-shown"}, "timeout_ms": patience.Milliseconds(), "wait_id": "hunt-w1"},
	})
	var out strings.Builder
	for strings.Count(out.String(), "typed-then-cancelled") < 2 {
		m := watcher.note()
		if m.Method != notifyOutput {
			continue
		}
		var p noteParams
		require.NoError(t, json.Unmarshal(m.Params, &p))
		out.WriteString(p.Output)
	}
	var cancelled cancelWaitResult
	watcher.do("adapter.cancel_wait", map[string]any{"wait_id": "hunt-w1"}, &cancelled)
	require.True(t, cancelled.Cancelled)
	m := c.await(turn)
	require.NotNil(t, m.Error, "the turn was cancelled: %s", m.Result)
	require.Equal(t, int64(CodeCancelled), m.Error.Code, m.Error.Message)
	rc := turnErrorReceipt(t, m.Error)
	if assert.NotNil(t, rc, "a cancelled adapter.turn hides that its send was delivered; error data: %s", m.Error.Data) {
		assert.Equal(t, "send_text", rc["intent"])
	}
}
