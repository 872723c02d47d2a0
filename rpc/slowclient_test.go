//go:build unix

package rpc

import (
	"bufio"
	"encoding/json"
	"net"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright/internal/tuitest"
)

// liveHeap is the heap the last of two collections found live (the second
// empties the sync.Pool victim caches encoding/json keeps buffers in). It
// is the collector's figure, not HeapAlloc read after it: while a flood
// runs, HeapAlloc also counts what was allocated between the collection's
// end and the read, megabytes when the machine is loaded.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestSlowClientBlocksNobody: a subscribed client that never reads while
// `yes` floods a session must not stall the session, the server or another
// subscriber, and must cost bounded memory: its pending notifications
// coalesce into one state per session instead of queueing.
func TestSlowClientBlocksNobody(t *testing.T) {
	const (
		flood  = 32 << 20 // bytes the fast client must receive: far more than the allowed growth
		bound  = 16 << 10 // the session's transcript bound, in chars
		growth = 12 << 20 // allowed live-heap growth while flooding (a queue would hold the whole 32 MiB flood; in-flight buffers reached 6.3 MiB on a loaded machine)
	)
	srv := newServer(t, Options{})
	path := serveUnix(t, srv)

	slow, err := net.Dial("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = slow.Close() })
	_, err = slow.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server.set_notifications","params":{"enabled":true}}` + "\n"))
	require.NoError(t, err)

	fast := dialUnix(t, path, NDJSON)
	fast.do("server.set_notifications", map[string]any{"enabled": true}, nil)
	// Long lines on one row: every line feed copies the screen grid, so
	// this floods fastest.
	id := fast.create(map[string]any{
		"program": "yes", "args": []string{strings.Repeat("y", 999)},
		"rows": 1, "cols": 1000, "transcript_max_chars": bound,
	})

	received := 0
	receive := func(n int) {
		for received < n {
			m := fast.note()
			if m.Method == notifyOutput {
				received += len(decodeNote(t, m).Output)
			}
		}
	}
	receive(64 << 10) // flooding for real, and the slow client's buffers filling
	before := liveHeap()
	receive(flood)
	after := liveHeap()
	t.Logf("received %d bytes; live heap %d -> %d", received, before, after)
	require.Less(t, int64(after)-int64(before), int64(growth), "memory grew with the flood: notifications queue up for the slow client")
	tuitest.BlockedIn(t, "rpc.(*ndjsonWriter).writeFrames", 1) // one frame or a batch: both write there
	// Requests are answered in the middle of the flood.
	var snap struct {
		PlainText string `json:"plain_text"`
	}
	fast.do("session.snapshot", map[string]any{"session": id}, &snap)
	require.Contains(t, snap.PlainText, "yyyy")
	fast.do("session.list", nil, nil)

	// Once the slow client reads, it gets its response, then coalesced
	// output that says the transcript bound cut it.
	fast.do("session.kill", map[string]any{"session": id}, nil)
	require.NoError(t, slow.SetReadDeadline(time.Now().Add(patience)))
	in := bufio.NewReaderSize(slow, 1<<20)
	sawResponse, sawDropped := false, false
	for !sawDropped {
		line, err := in.ReadBytes('\n')
		require.NoError(t, err)
		var m message
		require.NoError(t, json.Unmarshal(line, &m))
		if m.Method == "" {
			require.Equal(t, "1", string(m.ID))
			sawResponse = true
			continue
		}
		require.True(t, sawResponse, "a notification came before the response")
		if m.Method == notifyOutput {
			p := decodeNote(t, m)
			require.LessOrEqual(t, len([]rune(p.Output)), bound, "one delta is at most the transcript bound")
			sawDropped = p.Dropped
		}
	}
}
