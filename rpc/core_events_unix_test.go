//go:build unix

package rpc

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
)

// TestResizeRightAfterRegistrationIsReported resizes each session the
// moment the registry has it, before its watcher has had a chance to run,
// as a client acting on session:created at once does. Each resize must
// become a session:resized event: the watcher's baseline is the size at
// registration, not whatever the size is when the watcher first looks.
func TestResizeRightAfterRegistrationIsReported(t *testing.T) {
	bus := events.New(slog.New(slog.DiscardHandler))
	resized := make(chan events.Event, 256)
	defer bus.Subscribe(func(ev events.Event) {
		if ev.Name == events.SessionResized {
			resized <- ev
		}
	})()
	r := newRegistry(slog.New(slog.DiscardHandler), bus)
	defer func() { require.NoError(t, r.closeAll()) }()

	for i := range 40 {
		sess, err := ptywright.Start(ptywright.Options{Program: "cat", Size: ptywright.Size{Rows: 24, Cols: 80}})
		require.NoError(t, err)
		e, err := r.add(context.Background(), sess, "", func() {}, ownership{}, nil)
		if err != nil {
			_ = sess.Close()
			require.NoError(t, err)
		}
		want := ptywright.Size{Rows: 30, Cols: 100 + i}
		require.NoError(t, sess.Resize(want))
		deadline := time.After(patience)
	wait:
		for {
			select {
			case ev := <-resized:
				if ev.Session != e.id {
					continue
				}
				var ce ptywright.CoreEvent
				require.NoError(t, json.Unmarshal(ev.Payload, &ce))
				require.Equal(t, &want, ce.Size)
				break wait
			case <-deadline:
				t.Fatalf("session %s (iteration %d): no session:resized within %s", e.id, i, patience)
			}
		}
		require.NoError(t, r.remove(e.id))
	}
}
