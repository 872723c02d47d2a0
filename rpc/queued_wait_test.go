//go:build unix

package rpc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// holderDelay is how long the holder's wait lasts: its program prints what
// the holder waits for this long after the holder starts. The queued calls'
// own 1 s timeouts and their cancels must answer well before.
const holderDelay = 4 * time.Second

// TestQueuedWaitsKeepTheirOwnClock: an adapter.wait or adapter.turn queued
// (from other connections) behind an adapter.turn or another adapter.wait
// on the same adapter ends with -32001 at its own timeout_ms and with
// -32005 as soon as adapter.cancel_wait cancels it, long before the holder
// is done, and the holder is untouched: a queued turn's send never reached
// the program, and the holder ends matched, on its own condition.
//
// The figures are logged; the assertions are the ordering that matters
// (each queued call answers while the holder still holds the lock, and not
// before its own deadline) with bounds generous enough for a loaded
// machine.
func TestQueuedWaitsKeepTheirOwnClock(t *testing.T) {
	// The program writes the first line it reads (the holder's go) back
	// twice, which confirms the send's receipt (the echo plugin expects
	// the line twice), then prints "release" twice holderDelay later,
	// which the echo plugin's wait_echo_matcher waits for. It says ready
	// once the terminal no longer echoes: "go" typed before that could be
	// echoed in part ("gogo" on one line, seen once, so the receipt is
	// rightly ignored and the turn answers at once without its wait).
	program := []string{"-c", `stty -echo; echo ready; read go; echo "$go"; echo "$go"; sleep ` + seconds(holderDelay) + `; echo release; echo release; cat`}
	srv := newServer(t, Options{Plugins: newPlugins(t, echoManifest)})
	path := serveUnix(t, srv)
	for _, holderKind := range []string{"adapter.turn", "adapter.wait"} {
		t.Run("behind "+holderKind, func(t *testing.T) {
			holder := dialUnix(t, path, NDJSON)
			queued := dialUnix(t, path, NDJSON)
			canceller := dialUnix(t, path, NDJSON)
			a := holder.startAdapter(map[string]any{"plugin": "echo", "program": "/bin/sh", "args": program})
			holder.wait(a.Session, containsText("ready"))
			release := map[string]any{"intent": "wait_echo_matcher", "params": map[string]any{"text": "release"}, "timeout_ms": patience.Milliseconds()}

			var held <-chan message
			if holderKind == "adapter.turn" {
				held = holder.start("adapter.turn", map[string]any{"adapter": a.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "go"}}, "wait": release})
			} else {
				// The holder waits on its own: the program is started by a
				// send that went first.
				holder.do("adapter.send", map[string]any{"adapter": a.Adapter, "intent": "send_text", "params": map[string]any{"text": "go"}}, nil)
				params := map[string]any{"adapter": a.Adapter}
				for k, v := range release {
					params[k] = v
				}
				held = holder.start("adapter.wait", params)
			}
			holderStart := time.Now()
			tuitest.BlockedIn(t, "ptywright.(*Session).Wait", 1)

			// Three calls queue behind the holder: a wait and a turn with
			// 1 s timeouts, and a wait bound to a wait_id.
			const timeout = time.Second
			sent := time.Now()
			qWait := queued.start("adapter.wait", map[string]any{"adapter": a.Adapter, "intent": "wait_echo_matcher", "params": map[string]any{"text": "release"}, "timeout_ms": timeout.Milliseconds()})
			qTurn := queued.start("adapter.turn", map[string]any{"adapter": a.Adapter, "send": map[string]any{"intent": "send_text", "params": map[string]any{"text": "intruder"}}, "wait": map[string]any{"timeout_ms": timeout.Milliseconds()}})
			qBound := queued.start("adapter.wait", map[string]any{"adapter": a.Adapter, "timeout_ms": patience.Milliseconds(), "wait_id": "queued-" + holderKind})
			tuitest.BlockedIn(t, "ptywright.turnLock.lock", 3)

			for name, ch := range map[string]<-chan message{"adapter.wait": qWait, "adapter.turn": qTurn} {
				m := queued.await(ch)
				elapsed := time.Since(sent)
				t.Logf("queued %s with timeout_ms %d answered after %s (holder started %s before)", name, timeout.Milliseconds(), elapsed.Round(time.Millisecond), sent.Sub(holderStart).Round(time.Millisecond))
				requireError(t, m.Error, CodeTimeout, "")
				require.Contains(t, string(m.Error.Data), "transcript_tail", "a queued wait that times out reports the screen as evidence")
				data := errData(t, m.Error)
				ex, ok := data["explanation"].(map[string]any)
				require.True(t, ok, "a queued wait that times out explains the last classification: %v", data)
				require.NotEmpty(t, ex["state"])
				require.LessOrEqual(t, ex["sequence"], data["sequence"], "the last classification's, of a screen no later than the last")
				require.GreaterOrEqual(t, elapsed, timeout, "answered before its own deadline")
				require.Less(t, time.Since(holderStart), holderDelay, "it waited for the holder instead of its own clock")
				requireNotYet(t, held, "the holder")
			}

			cancelled := time.Now()
			var res cancelWaitResult
			canceller.do("adapter.cancel_wait", map[string]any{"wait_id": "queued-" + holderKind}, &res)
			require.True(t, res.Cancelled)
			m := queued.await(qBound)
			afterCancel := time.Since(cancelled)
			t.Logf("queued adapter.wait answered %s after adapter.cancel_wait", afterCancel.Round(time.Millisecond))
			requireError(t, m.Error, CodeCancelled, `wait "queued-`+holderKind+`" cancelled by adapter.cancel_wait`)
			require.Less(t, afterCancel, time.Second, "the cancel took effect late (the target is 100 ms)")
			require.Less(t, time.Since(holderStart), holderDelay, "it waited for the holder instead of its own clock")
			requireNotYet(t, held, "the holder")

			// The holder ends on its own condition, matched, and the
			// queued turn never typed.
			m = holder.await(held)
			t.Logf("the holder's %s answered after %s", holderKind, time.Since(holderStart).Round(time.Millisecond))
			require.Nil(t, m.Error, "the holder was disturbed: %v", m.Error)
			var w waited
			require.NoError(t, json.Unmarshal(m.Result, &w))
			require.Equal(t, "lua", string(w.Matched.Kind))
			var tr transcriptResult
			holder.do("adapter.transcript", map[string]any{"adapter": a.Adapter}, &tr)
			require.NotContains(t, tr.Text, "intruder", "a timed-out queued turn sent its intent")
			require.Equal(t, 2, strings.Count(tr.Text, "release"))
			// The lock is free again.
			holder.do("adapter.state", map[string]any{"adapter": a.Adapter}, nil)
			holder.do("adapter.close", map[string]any{"adapter": a.Adapter}, nil)
		})
	}
}

// requireNotYet fails if ch already has an answer.
func requireNotYet(t *testing.T, ch <-chan message, what string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("%s answered already: %+v", what, m)
	default:
	}
}

func seconds(d time.Duration) string {
	return strings.TrimSuffix(d.String(), "s")
}
