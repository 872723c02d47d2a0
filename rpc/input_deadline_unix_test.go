//go:build unix

package rpc

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInputCannotWedgeASession: input to a program that reads nothing
// answers -32001 at its timeout_ms saying how much went in; another
// client's input queued behind it answers at its own timeout; and an
// interrupt is delivered at once, as the signal the terminal would make of
// it, with the stuck write released by the program's exit.
func TestInputCannotWedgeASession(t *testing.T) {
	path := serveUnix(t, newServer(t, Options{}))
	c := dialUnix(t, path, NDJSON)
	id := c.sh(`stty -icanon -echo; trap 'echo got-int; exit 3' INT; echo ready; while :; do sleep 0.1; done`)
	c.wait(id, containsText("ready"))
	big := strings.Repeat("x", 1<<20)

	var wg sync.WaitGroup
	defer wg.Wait() // A failure below must not leave a call running past the test.
	var first *Error
	wg.Go(func() {
		first = dialUnix(t, path, NDJSON).callErr("session.input", map[string]any{"session": id, "timeout_ms": 6000,
			"action": map[string]any{"type": "paste", "value": big}})
	})
	// A one-byte input queued behind the paste ends at its own timeout,
	// nothing written (one that finds the input free goes in).
	var e *Error
	for range 200 {
		start := time.Now()
		e = dialUnix(t, path, NDJSON).errorOf("session.input", map[string]any{"session": id, "timeout_ms": 100,
			"action": map[string]any{"type": "text", "value": "y"}})
		if e != nil {
			require.Less(t, time.Since(start), 4*time.Second, "the queued input ended at its own timeout, not the paste's")
			break
		}
	}
	requireError(t, e, CodeTimeout, "0 of 1 bytes of input written")
	require.Equal(t, map[string]any{"written": 0.0, "bytes": 1.0}, errData(t, e))
	wg.Wait()
	requireError(t, first, CodeTimeout, "bytes of input written")
	d := errData(t, first)
	require.Positive(t, d["written"])
	require.Less(t, d["written"], d["bytes"])

	// A stuck write again, on a fresh session (the first paste filled this
	// one's input queue, which would also hold a probe), and Ctrl-C
	// through it.
	id = c.sh(`stty -icanon -echo; trap 'echo got-int; exit 3' INT; echo ready; while :; do sleep 0.1; done`)
	c.wait(id, containsText("ready"))
	wg.Go(func() {
		first = dialUnix(t, path, NDJSON).callErr("session.input", map[string]any{"session": id, "timeout_ms": 30000,
			"action": map[string]any{"type": "paste", "value": big}})
	})
	for {
		if e := c.errorOf("session.input", map[string]any{"session": id, "timeout_ms": 1000, "action": map[string]any{"type": "text", "value": "y"}}); e != nil {
			requireError(t, e, CodeTimeout, "0 of 1 bytes")
			break
		}
	}
	var res inputResult
	c.do("session.input", map[string]any{"session": id, "action": map[string]any{"type": "interrupt"}}, &res)
	require.True(t, res.Signalled, "delivered as a signal, not queued")
	c.wait(id, map[string]any{"type": "transcript_contains", "value": "got-int"})
	wg.Wait()
	requireError(t, first, CodeSessionClosed, "the program exited")
}

// errorOf makes a call and returns its error reply, nil when it succeeded.
func (c *client) errorOf(method string, params any) *Error {
	c.t.Helper()
	_, e := c.call(method, params)
	return e
}
