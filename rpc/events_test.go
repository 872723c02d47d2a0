package rpc

import (
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/events"
)

func TestEventFilter(t *testing.T) {
	tests := []struct {
		name               string
		sessions, adapters []string
		ev                 events.Event
		want               bool
	}{
		{"empty filter, scoped", nil, nil, events.Event{Session: "s1", Adapter: "e1"}, true},
		{"empty filter, unscoped", nil, nil, events.Event{}, true},
		{"session match", []string{"s1"}, nil, events.Event{Session: "s1"}, true},
		{"adapter match", nil, []string{"e1"}, events.Event{Session: "s1", Adapter: "e1"}, true},
		{"either list", []string{"s9"}, []string{"e1"}, events.Event{Session: "s1", Adapter: "e1"}, true},
		{"other session", []string{"s2"}, nil, events.Event{Session: "s1", Adapter: "e1"}, false},
		{"other adapter", nil, []string{"e2"}, events.Event{Session: "s1", Adapter: "e1"}, false},
		{"unscoped under a filter", []string{"s1"}, []string{"e1"}, events.Event{}, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, newFilter(tt.sessions, tt.adapters).matchEvent(tt.ev), tt.name)
	}
}

func TestRedactJSON(t *testing.T) {
	in := `{"token":"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345","n":12345678901234567890,"list":["plain",1.5,null,true]}`
	out := string(redactJSON([]byte(in)))
	require.NotContains(t, out, "abcdefghijklmnopqrstuvwxyz012345")
	require.Contains(t, out, `"n":12345678901234567890`, "big integers stay exact")
	require.Contains(t, out, `"list":["plain",1.5,null,true]`)
	require.Equal(t, "null", string(redactJSON(nil)))
	require.Equal(t, "null", string(redactJSON([]byte("{"))))
}
