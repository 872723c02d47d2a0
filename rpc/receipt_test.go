//go:build unix

package rpc

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// receiptShape is a Receipt as a client reads it.
type receiptShape struct {
	Intent      string `json:"intent"`
	Effect      string `json:"effect"`
	Bytes       int    `json:"bytes"`
	Attempts    int    `json:"attempts"`
	Sequence    uint64 `json:"sequence"`
	StateBefore string `json:"state_before"`
	Confirmed   string `json:"confirmed_state"`
	Reason      string `json:"reason"`
}

// adapter.send and adapter.turn say what became of the intent; a wait
// after a receipt's sequence sees only what followed.
func TestAdapterSendReceipt(t *testing.T) {
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	a := c.startAdapter(map[string]any{"plugin": "echo"})

	var sent struct {
		State   stateShape   `json:"state"`
		Receipt receiptShape `json:"receipt"`
	}
	c.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "one"}}, &sent)
	require.Equal(t, receiptShape{Intent: "send_text", Effect: "confirmed", Bytes: 4, Attempts: 1, Sequence: sent.Receipt.Sequence, StateBefore: "idle", Confirmed: "echoed"}, sent.Receipt)
	require.Equal(t, "echoed", sent.State.State)

	// Nothing changes after the receipt's echo: a text wait after the
	// current sequence times out instead of answering with the old screen.
	var snap struct {
		Sequence uint64 `json:"sequence"`
	}
	c.do("adapter.snapshot", map[string]any{"adapter": a.Adapter}, &snap)
	e := c.callErr("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "one"}, "timeout_ms": 200, "after_sequence": snap.Sequence})
	require.Equal(t, int64(CodeTimeout), e.Code, e.Message)
	var w waited
	c.do("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "one"}, "timeout_ms": 5000, "after_sequence": sent.Receipt.Sequence}, &w)
	require.Equal(t, "echoed", w.State.State)

	var turned struct {
		State   stateShape      `json:"state"`
		Matched json.RawMessage `json:"matched"`
		Receipt receiptShape    `json:"receipt"`
	}
	c.do("adapter.turn", map[string]any{"adapter": a.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "two"}}}, &turned)
	require.Equal(t, "confirmed", turned.Receipt.Effect)
	require.Greater(t, turned.Receipt.Sequence, sent.Receipt.Sequence)
	require.Contains(t, string(turned.Matched), `"kind":"all"`)

	// An intent without an expectation is unverified, and says why.
	c.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "interrupt"}, &sent)
	require.Equal(t, "unverified", sent.Receipt.Effect)
	require.Equal(t, 1, sent.Receipt.Bytes)
	require.Contains(t, sent.Receipt.Reason, "no expectation")
}

// session.input reports the sequence its write began at; session.wait with
// after_sequence answers with the screen the input produced.
func TestSessionInputSequenceAndWaitAfter(t *testing.T) {
	srv := newServer(t, Options{})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	id := c.sh(`stty -echo; while printf 'ready> '; read l; do echo "got $l"; done`)
	c.wait(id, containsText("ready> "))
	for i := range 8 {
		var in struct {
			Sent     bool   `json:"sent"`
			Bytes    int    `json:"bytes"`
			Sequence uint64 `json:"sequence"`
		}
		text := fmt.Sprintf("x%d", i)
		c.do("session.input", input(id, text+"\r"), &in)
		require.True(t, in.Sent)
		require.Equal(t, len(text)+1, in.Bytes)
		var res waitResult
		c.do("session.wait", map[string]any{"session": id, "matcher": map[string]any{"type": "screen_stable", "value": map[string]any{"min_ms": 1000}}, "timeout_ms": 10000, "after_sequence": in.Sequence}, &res)
		require.Contains(t, res.Snapshot.PlainText, "got "+text, "run %d: the wait answered with the screen from before the input", i)
		require.Greater(t, res.Sequence, in.Sequence)
	}
}
