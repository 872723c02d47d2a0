//go:build unix

package rpc

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/events"
	"ptywright/plugins"
)

// TestAdapterInstanceHearsItsSessionCreatedFirst: an adapter's own plugin
// instance hears session:created for its own session, scoped to it, before
// any other event of that session, even when the program exits at once.
// Repeated, since the exit races the announcement.
func TestAdapterInstanceHearsItsSessionCreatedFirst(t *testing.T) {
	p, err := plugins.New(plugins.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, p.Close()) })
	_, err = p.Load("testdata/plugins/order/manifest.toml")
	require.NoError(t, err)
	srv := newServer(t, Options{Plugins: p})
	c := dialUnix(t, serveUnix(t, srv), NDJSON)
	c.do("server.set_notifications", map[string]any{"enabled": true, "events": true}, nil)
	for range 20 {
		started := c.startAdapter(map[string]any{"plugin": "order"})
		var seen []string
		for {
			ev := c.nextEvent(func(ev eventParams) bool { return ev.Event == "order:seen" && ev.Adapter == started.Adapter })
			var body struct{ Event, Session string }
			require.NoError(t, json.Unmarshal(ev.Payload, &body))
			if body.Session != started.Session {
				continue // another adapter's session, heard too
			}
			require.Equal(t, started.Session, ev.Session, "the handler ran scoped to its session")
			seen = append(seen, body.Event)
			if body.Event == events.SessionExited {
				break
			}
		}
		require.Equal(t, []string{events.SessionCreated, events.SessionExited}, seen)
	}
}
