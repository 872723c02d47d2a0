//go:build unix

package ptywright_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// TestOutputSinceSecretBrokenByEscape: a program prints a key in two
// writes, a colour change or an erased typo between the two pieces, with a
// pause shorter or longer than the hold-back delay. The screen shows the
// key whole; joining the stream's pieces never shows a piece of it.
func TestOutputSinceSecretBrokenByEscape(t *testing.T) {
	tuitest.NoLeak(t)
	const body = "Xb7uK2pQ9wE4rT6yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN1mQ3wE5rT7yU9iO2pA4sD6fG8hJ0kL"
	for _, brk := range []string{`\033[1m`, `X\b`, `X\b\033[K`} {
		for _, pause := range []string{"0", "0.02", "0.3"} {
			t.Run(brk+" pause "+pause, func(t *testing.T) {
				s := sh(t, `printf 'KEY sk-ant-api03-Q7`+brk+`'; sleep `+pause+`; printf '`+body+`AA\033[0m\n'; printf 'after\n'; sleep 5`)
				chunks := followOutput(t, s, func(j string) bool { return strings.Contains(j, "after\r\n") })
				joined := strings.Join(chunks, "")
				require.True(t, strings.HasPrefix(joined, "KEY [REDACTED]"), "%q", chunks)
				requireNoFragment(t, joined, "Q7"+body)
				require.Contains(t, joined, "after\r\n")
				require.Contains(t, strings.ReplaceAll(s.Snapshot(ptywright.SnapshotOptions{Raw: true}).PlainText, "\n", ""), "sk-ant-api03-Q7"+body, "the screen shows it whole")
				require.NoError(t, s.Close())
			})
		}
	}
}
