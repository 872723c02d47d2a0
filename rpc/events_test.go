package rpc

import (
	"encoding/json"
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
	out := string(redactJSON([]byte(in), 0))
	require.NotContains(t, out, "abcdefghijklmnopqrstuvwxyz012345")
	require.Contains(t, out, `"n":12345678901234567890`, "big integers stay exact")
	require.Contains(t, out, `"list":["plain",1.5,null,true]`)
	require.Equal(t, "null", string(redactJSON(nil, 0)))
	require.Equal(t, "null", string(redactJSON([]byte("{"), 0)))
}

// TestRedactJSONMemberNames: a member name quoting a secret is redacted,
// and two names that redact alike stay two members, named in sorted
// order of the originals.
func TestRedactJSONMemberNames(t *testing.T) {
	const body = "Xb7uK2pQ9wE4rT6yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN1mQ3wE5rT7yU9iO2pA4sD6fG8hJ0kL"
	a, b := "sk-ant-api03-"+body[:40]+"AA", "sk-ant-api03-"+body[10:50]+"BB"
	in, err := json.Marshal(map[string]any{"key: " + a: 1, "key: " + b: map[string]int{"key: " + a: 3}, "plain": 4})
	require.NoError(t, err)
	out := string(redactJSON(in, 0))
	require.JSONEq(t, `{"key: [REDACTED]":{"key: [REDACTED]":3},"key: [REDACTED] (2)":1,"plain":4}`, out)
}

// TestRedactJSONWrappedRows: with the session's width, a list of strings
// is read as its rows: a secret the terminal wrapped is hidden on both.
func TestRedactJSONWrappedRows(t *testing.T) {
	line := "key: sk-ant-api03-Xb7uK2pQ9wE4rT6yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN1mQ3wE5rT7yU9iO2pA4sD6fG8hJ0kLAA"
	in, err := json.Marshal(map[string]any{"list": []string{line[:40], line[40:80], line[80:], "end"}})
	require.NoError(t, err)
	require.Contains(t, string(redactJSON(in, 0)), line[80:], "without a width each row stands alone")
	out := string(redactJSON(in, 40))
	require.JSONEq(t, `{"list":["key: [REDACTED]","[REDACTED]","[REDACTED]","end"]}`, out)
}
