package ptywright_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// TestBadInputIsInvalidParams: every path that refuses a caller's input
// answers an error that is ErrInvalidParams, as well as the sentinel that
// names what was wrong.
func TestBadInputIsInvalidParams(t *testing.T) {
	existing := filepath.Join(t.TempDir(), "rec.cast")
	require.NoError(t, os.WriteFile(existing, nil, 0o600))
	var m ptywright.Matcher
	var a ptywright.Action
	cases := []struct {
		name     string
		err      error
		sentinel error
	}{
		{"matcher", json.Unmarshal([]byte(`{"type":"contains_text"}`), &m), ptywright.ErrInvalidMatcher},
		{"action", json.Unmarshal([]byte(`{"type":"bogus"}`), &a), ptywright.ErrInvalidAction},
		{"key", func() error { _, err := ptywright.ParseKey("nosuchkey"); return err }(), ptywright.ErrUnknownKey},
		{"signal", func() error { _, err := ptywright.ParseSignal("SIGNOPE"); return err }(), ptywright.ErrUnknownSignal},
		{"size", ptywright.Size{Rows: 0, Cols: 80}.Validate(), ptywright.ErrInvalidSize},
		{"engine", func() error {
			_, err := ptywright.Start(ptywright.Options{Program: "/bin/true", Engine: "nope"})
			return err
		}(), ptywright.ErrInvalidEngine},
		{"redaction", func() error {
			_, err := ptywright.RedactionPolicy{Enabled: true, ExtraRegexes: []string{"("}}.Compile()
			return err
		}(), ptywright.ErrInvalidRedaction},
		{"recording exists", func() error {
			_, err := ptywright.Start(ptywright.Options{Program: "/bin/true", RecordPath: existing})
			return err
		}(), ptywright.ErrFileExists},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Error(t, c.err)
			require.ErrorIs(t, c.err, c.sentinel)
			require.ErrorIs(t, c.err, ptywright.ErrInvalidParams)
		})
	}
	require.ErrorIs(t, ptywright.ErrFileExists, fs.ErrExist)
	require.ErrorIs(t, ptywright.ErrNotHeld, ptywright.ErrInvalidParams)
	require.NotErrorIs(t, ptywright.ErrNoMatch, ptywright.ErrInvalidParams, "no match is an outcome")

	s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "sleep 5"}})
	require.NoError(t, err)
	defer s.Close()
	err = s.Mark("")
	require.ErrorIs(t, err, ptywright.ErrInvalidMarker)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	_, err = s.Wait(context.Background(), ptywright.Matcher{Type: "bogus"})
	require.ErrorIs(t, err, ptywright.ErrInvalidMatcher)
	require.ErrorIs(t, err, ptywright.ErrInvalidParams)
	require.False(t, errors.Is(ptywright.ErrInvalidParams, ptywright.ErrInvalidMatcher), "the class does not match each sentinel")
}
