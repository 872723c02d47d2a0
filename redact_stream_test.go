package ptywright

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOpenSecretTail(t *testing.T) {
	tests := []struct {
		in   string
		want string // the held part, "" for none
	}{
		{"KEY sk-ant-api03-Q7", "sk-ant-api03-Q7"},
		{"sk-", "sk-"},
		{"push https://ghp_abc", "ghp_abc"},
		{"AKIA12", "AKIA12"},
		{"id eyJhbGci", "eyJhbGci"},
		{"password=hu", "hu"},
		{`{"token": "ab`, "ab"},
		{"Authorization: Basic dXNl", "dXNl"},
		{"Authorization: Bearer abc", "abc"},
		{"postgres://app:s3c", "s3c"},
		{"-----BEGIN RSA PRIV", "-----BEGIN RSA PRIV"},
		// Nothing to hold: prompts, keys without values, ordinary words.
		{"Password: ", ""},
		{"password=", ""},
		{"Bearer", ""},
		{"hello", ""},
		{"task-force", ""},
		{"https://example.com", ""},
		{"", ""},
	}
	for _, tt := range tests {
		k := openSecretTail(tt.in)
		got := ""
		if k >= 0 {
			got = tt.in[k:]
		}
		require.Equal(t, tt.want, got, tt.in)
	}
}

func TestStreamCut(t *testing.T) {
	r := DefaultRedactor()
	for _, tt := range []struct {
		held string
		want int
	}{
		{"done\n", 5},
		{"line\npartial", 5},
		{"\x1b[0m", 4},
		{"a \x1b[", 2},
		{"a\x1b[", 0},             // after a word: a colour change inside a secret, maybe
		{"line\nsk-ab\x1b[1m", 5}, // the same
		{"line\nab X\b", 5},       // an erased typo
		{"a\x1b[2;1H", 7},         // a cursor move ends a word
		{"line\nAPI_KEY=abc123", 5},
	} {
		require.Equal(t, tt.want, streamCut(tt.held, streamSpans(r, tt.held, 0), 0), "%q", tt.held)
	}
	// A secret straddling the last line break is held with its key.
	s := "x\n-----BEGIN PRIVATE KEY-----\nMIIabc\n"
	require.LessOrEqual(t, streamCut(s, streamSpans(r, s, 0), 0), 2)
	// Lookbehind: a span that began before the held text starts at 0.
	require.Equal(t, [][2]int{{0, 8}}, streamSpans(r, "sk-ant-api03-"+"abcdefgh12345678", 21))
}
