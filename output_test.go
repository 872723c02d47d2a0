//go:build unix

package ptywright_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// followOutput reads a session's output stream the way an eager client
// does: on every change, and when a held tail is due, until done says the
// joined text is complete. It returns the chunks.
func followOutput(t *testing.T, s *ptywright.Session, done func(joined string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var chunks []string
	var joined strings.Builder
	cursor := int64(0)
	for {
		_, changed := s.Changed()
		out := s.OutputSince(cursor, nil)
		cursor = out.Next
		if out.Text != "" {
			chunks = append(chunks, out.Text)
			joined.WriteString(out.Text)
		}
		if done(joined.String()) {
			return chunks
		}
		var due <-chan time.Time
		if !out.HeldUntil.IsZero() {
			timer := time.NewTimer(time.Until(out.HeldUntil))
			defer timer.Stop()
			due = timer.C
		}
		select {
		case <-changed:
		case <-due:
		case <-ctx.Done():
			t.Fatalf("output never completed; chunks so far: %q", chunks)
		}
	}
}

// requireNoFragment fails if text shows any 6-character piece of secret's
// random part.
func requireNoFragment(t *testing.T, text, secret string) {
	t.Helper()
	for i := 0; i+6 <= len(secret); i++ {
		require.NotContains(t, text, secret[i:i+6], "a piece of the secret leaked: %q", text)
	}
}

// TestOutputSinceSplitSecret: a program prints a key in two writes with a
// pause between them. Joining the stream's pieces never reassembles it,
// whether the pause is shorter or longer than the hold-back delay.
func TestOutputSinceSplitSecret(t *testing.T) {
	tuitest.NoLeak(t)
	const body = "Xb7uK2pQ9wE4rT6yU1iO3pA5sD8fG0hJ2kL4zX6cV8bN1mQ3wE5rT7yU9iO2pA4sD6fG8hJ0kL"
	for _, pause := range []string{"0", "0.02", "0.3"} {
		t.Run("pause "+pause, func(t *testing.T) {
			for range 3 {
				s := sh(t, `printf 'KEY sk-ant-api03-Q7'; sleep `+pause+`; printf '`+body+`AA\n'; printf 'after\n'; sleep 5`)
				chunks := followOutput(t, s, func(j string) bool { return strings.Contains(j, "after\r\n") })
				joined := strings.Join(chunks, "")
				require.True(t, strings.HasPrefix(joined, "KEY [REDACTED]"), "%q", chunks)
				requireNoFragment(t, joined, "Q7"+body)
				require.Contains(t, s.Transcript(ptywright.NoRedaction()), "sk-ant-api03-Q7"+body, "the raw transcript has it whole")
				require.NoError(t, s.Close())
			}
		})
	}
}

// TestOutputSinceHoldsOnlyWhatCouldBeASecret: a prompt without a newline
// is released once the program is quiet, unchanged; a line of ordinary text
// is released at once.
func TestOutputSinceReleasesPrompts(t *testing.T) {
	s := sh(t, `printf 'line one\nPassword: '; sleep 5`)
	chunks := followOutput(t, s, func(j string) bool { return strings.HasSuffix(j, "Password: ") })
	require.Equal(t, "line one\r\nPassword: ", strings.Join(chunks, ""))
}

// TestOutputSincePrivateKey: a private key block written in pieces is hidden
// whole, and what follows it is not.
func TestOutputSincePrivateKey(t *testing.T) {
	var body strings.Builder
	for i := range 8 {
		fmt.Fprintf(&body, "MIIE%060d\n", i*7919)
	}
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + body.String() + "-----END RSA PRIVATE KEY-----\n"
	half := len(key) / 2
	s := sh(t, `printf '%s' '`+key[:half]+`'; sleep 0.3; printf '%s' '`+key[half:]+`'; printf 'done\n'; sleep 5`)
	chunks := followOutput(t, s, func(j string) bool { return strings.Contains(j, "done\r\n") })
	joined := strings.Join(chunks, "")
	require.NotContains(t, joined, "MIIE")
	require.NotContains(t, joined, "END RSA")
	require.True(t, strings.HasSuffix(joined, "done\r\n"), "%q", joined)
}

// TestOutputSinceExitReleasesEverything: at exit nothing is held.
func TestOutputSinceExitReleasesEverything(t *testing.T) {
	s := sh(t, `printf 'no newline at the end'`)
	<-s.Exited()
	out := s.OutputSince(0, nil)
	require.Equal(t, "no newline at the end", out.Text)
	require.True(t, out.HeldUntil.IsZero())
	require.Equal(t, s.TranscriptCursor(), out.Next)
}

// TestTranscriptCutInsideSecret: when the transcript bound (or a wait's
// transcript tail) cuts a secret, the part after the cut stays hidden.
func TestTranscriptCutInsideSecret(t *testing.T) {
	const body = "Rq4Wz8Ty2Ux6Vi0Op3As7Df1Gh5Jk9Lz2Xc6Vb0Nm4Qw8Er3Ty7Ui1Op5As9Df3Gh7Jk1Lz5Xc9Vb3Nm7"
	secret := "sk-ant-api03-" + body + "AA"
	t.Run("transcript_max_chars", func(t *testing.T) {
		// 40 characters of the key and the marker line stay in 60.
		s := start(t, ptywright.Options{Program: "/bin/sh", Args: []string{"-c", `printf 'header line\nkey: ` + secret + `\nend-mark\n'; sleep 5`}, TranscriptMaxChars: 60})
		waitFor(t, s, ptywright.TranscriptContains("end-mark"))
		raw := s.Transcript(ptywright.NoRedaction())
		require.Contains(t, raw, body[len(body)-30:], "the bound cut inside the key")
		require.NotContains(t, raw, "sk-ant")
		got := s.Transcript(nil)
		require.True(t, strings.HasPrefix(got, "[REDACTED]"), "%q", got)
		requireNoFragment(t, got, body)
		require.Contains(t, got, "end-mark")

		out := s.OutputSince(0, nil)
		require.True(t, out.Dropped)
		requireNoFragment(t, out.Text, body)
	})
	t.Run("wait transcript_tail", func(t *testing.T) {
		filler := strings.Repeat("f", 2000-40) // a wait's transcript tail is its last 2000 characters
		s := sh(t, `printf 'key: `+secret+`\n`+filler+`\ntail-mark\n'; sleep 5`)
		res := waitFor(t, s, ptywright.TranscriptContains("tail-mark"))
		require.True(t, strings.HasPrefix(res.TranscriptTail, "[REDACTED]\r\n"), "%q", res.TranscriptTail[:40])
		requireNoFragment(t, res.TranscriptTail, body)
	})
}

// TestOutputSinceReleasesOrdinaryPartialLines: a partial line that cannot
// begin a secret is released at once, without waiting for the hold-back
// delay; a fragment that can is held.
func TestOutputSinceReleasesOrdinaryPartialLines(t *testing.T) {
	s := start(t, ptywright.Options{Program: "/bin/cat"})
	send(t, s, ptywright.Text("hello"))
	waitFor(t, s, ptywright.TranscriptContains("hello"))
	out := s.OutputSince(0, nil)
	require.Equal(t, "hello", out.Text)
	require.True(t, out.HeldUntil.IsZero())

	send(t, s, ptywright.Text(" password=hu"))
	waitFor(t, s, ptywright.TranscriptContains("password=hu"))
	out2 := s.OutputSince(out.Next, nil)
	if out2.HeldUntil.IsZero() {
		// The machine was slow: the hold-back delay passed before this read,
		// so the fragment was released hidden.
		require.Equal(t, " password=[REDACTED]", out2.Text)
		return
	}
	require.Equal(t, " password=", out2.Text, "the key is released, the start of its value held")
}
