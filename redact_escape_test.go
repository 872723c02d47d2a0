package ptywright

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// brokenSecrets are keys printed whole with a colour change, a hyperlink
// or an erased typo in their middle: the screen shows them whole.
func brokenSecrets() []string {
	head, tail := "sk-ant-api03-Q7xK2pL9", "mN4vB8cR1tY6uI0oP3aS5dF7gH9jK2lZ"
	var out []string
	for _, brk := range []string{"\x1b[1m", "X\b", "X\b \b", "X\b\x1b[K", "\x1b]8;;https://x.example\x1b\\", "\x1b]8;;https://x.example\x07"} {
		out = append(out, "$ echo KEY "+head+brk+tail+"\x1b[0m\r\nafter\r\n")
	}
	return out
}

// requireHidden fails when any 8 bytes of secret leak.
func requireHidden(t *testing.T, got, secret, msg string) {
	t.Helper()
	for i := 0; i+8 <= len(secret); i++ {
		require.NotContains(t, got, secret[i:i+8], "%s: %q", msg, got)
	}
	require.Contains(t, got, "after", msg)
}

// TestRedactSecretBrokenByEscape: Redact, a recording split at every byte
// and a transcript read from every offset hide the whole key.
func TestRedactSecretBrokenByEscape(t *testing.T) {
	red := DefaultRedactor()
	const key = "Q7xK2pL9mN4vB8cR1tY6uI0oP3aS5dF7gH9jK2lZ"
	for _, text := range brokenSecrets() {
		requireHidden(t, red.Redact(text), key, "Redact")
		for i := 0; i <= len(text); i++ {
			requireHidden(t, outputOf(recordChunks(t, red, text[:i], text[i:])), key, fmt.Sprintf("recording of %q split at %d", text, i))
			if i <= strings.Index(text, "mN4v") {
				// A read from byte i, judged with what is before it,
				// hides the rest of the key.
				requireHidden(t, redactAfter(red, text, i), key[8:], fmt.Sprintf("transcript of %q from %d", text, i))
			}
		}
	}
}

// TestRedactColouredTextUnchanged: ordinary coloured output, words broken
// by colour changes included, passes through every redaction unchanged.
func TestRedactColouredTextUnchanged(t *testing.T) {
	text := "\x1b[1;32m✔\x1b[0m build\x1b[2m/\x1b[0mtest passed in \x1b[33m1.2s\x1b[0m\r\n" +
		"file\x1b[1mname\x1b[0m.go:12: \x1b[31mundefined: fooBarBaz\x1b[39m\r\n" +
		"\x1b]8;;https://example.com/docs\x07docs\x1b]8;;\x07 typed wrong\b\b\b\b\bright\r\n"
	red := DefaultRedactor()
	require.Equal(t, text, red.Redact(text))
	require.Equal(t, text, outputOf(recordChunks(t, red, text[:40], text[40:])))
	require.Equal(t, text[30:], redactAfter(red, text, 30))
}
