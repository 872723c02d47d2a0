package ptywright

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlainTailsAreRedactedLikeAnyOther: a wait's transcript tail, which
// skips the redaction of text already found plain, equals the tail
// redacted in full, output after output, on output of plain lines broken
// by triggers, secrets, escapes and backspaces written across chunk
// boundaries, through the transcript's bound and its compactions. It
// fails if the scan that goes on from the last one starts too late to
// see a trigger the chunk boundary went through.
func TestPlainTailsAreRedactedLikeAnyOther(t *testing.T) {
	s, err := Start(Options{Program: "/bin/sleep", Args: []string{"1000"}, TranscriptMaxChars: 3000})
	require.NoError(t, err)
	defer func() { _ = s.Close() }() // Best effort: the test is done.
	pieces := []string{"plain line of output\r\n", "$ ls -l\r\n", "total 42 ", "x", "\r\n", "authorization", ": Bearer ",
		"sk-ant-api03-" + strings.Repeat("Ab3dE", 8), " token=", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "\x1b[1m", "\x1b[0m", "\b", "KEY", "\u212a"}
	check := func(n int) {
		t.Helper()
		s.mu.Lock()
		text, split := s.tr.withContextFor(s.tr.tailStart(n), nil)
		s.mu.Unlock()
		require.Equal(t, redactAfter(nil, text, split), s.transcriptTailN(nil, n))
	}
	// Plain output past the bound, the transcript compacting under a
	// range known plain, then a secret.
	for i := range 1500 {
		s.feed([][]byte{[]byte("plain line of output\r\n")})
		if i%30 == 0 {
			check(transcriptTailChars)
		}
	}
	s.feed([][]byte{[]byte("sk-ant-api03-" + strings.Repeat("Ab3dE", 8) + "\r\n")})
	check(transcriptTailChars)
	// Each secret cut at each byte, after plain lines (so the text before
	// it is known plain) and asked for at the cut.
	for _, secret := range []string{"sk-ant-api03-" + strings.Repeat("Ab3dE", 8), "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
		"ghp_" + strings.Repeat("a1B2", 9), "password=hunter2hunter2", "xoxb-1234567890-abcdefghij", "https://user:s3cretpass@example.com/"} {
		for k := 1; k < len(secret); k++ {
			for range 6 {
				s.feed([][]byte{[]byte("plain line of output\r\n")})
			}
			check(80)
			s.feed([][]byte{[]byte("ok " + secret[:k])})
			check(80)
			s.feed([][]byte{[]byte(secret[k:] + " done\r\n")})
			check(80)
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var out strings.Builder
	for range 3000 {
		out.WriteString(pieces[rng.IntN(len(pieces))])
		if rng.IntN(4) > 0 {
			continue
		}
		// Written in pieces cut anywhere: a trigger split by a chunk
		// boundary, and a tail asked for after each.
		data := out.String()
		out.Reset()
		for len(data) > 0 {
			k := 1 + rng.IntN(len(data))
			s.feed([][]byte{[]byte(data[:k])})
			data = data[k:]
			check(1 + rng.IntN(2*transcriptTailChars))
		}
	}
}
