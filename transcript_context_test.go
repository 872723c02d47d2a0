package ptywright

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// contextPieces are what random transcripts for TestContextForMatchesFullContext
// are made of: secrets of every default kind, their keys and values apart,
// private key blocks (closed, open, JSON-escaped), line breaks, escapes,
// multi-byte text and plain words.
var contextPieces = []string{
	"sk-ant-api03-", "Q7xK9mP2vL5nR8tW4yZ1", "API_KEY=", "hunter2secretvalue", "password: ", "\"s3cr3t-passw0rd\"",
	"Bearer ", "abcdefghijklmnopqrstuv", "https://user:", "pa55word-long@", "example.com/x",
	"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "AKIAABCDEFGHIJKLMNOP", "token = ", "eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl",
	"-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAA", "-----END OPENSSH PRIVATE KEY-----",
	"-----BEGIN CERTIFICATE-----", `\n`, "\n", "\r\n", "\n", "\r", "\t", " ", "  ", "\x1b[1m", "\x1b[0m", "\x1b[2K",
	"é", "日本語", "🙂", "the", "quick", "fox", "/etc/passwd: denied", "key", "secret_", "=", ":", "'",
}

// TestContextForMatchesFullContext checks that the narrowed context
// (withContextFor) redacts every read exactly as the whole transcriptContext
// does: the same spans after the split, for reads starting at every
// character of random transcripts, with the default policy, a policy with
// extras (which keeps the whole context) and none.
func TestContextForMatchesFullContext(t *testing.T) {
	// Each seed reads a sample of a random transcript's positions under
	// three policies: 8 seeds cost 40 to 80 s under -race on a loaded
	// two-core machine (the redaction regexes under the race detector), the
	// longest test of the package; 4 keep every piece and policy covered.
	contextSeeds := 4
	if testing.Short() {
		contextSeeds = 2
	}
	extra, err := RedactionPolicy{Enabled: true, ExtraLiterals: []string{"multi\nline"}, ExtraRegexes: []string{`zz\s+zz`}}.Compile()
	require.NoError(t, err)
	policies := []*Redactor{DefaultRedactor(), extra, NoRedaction()}
	for seed := range uint64(contextSeeds) {
		rng := rand.New(rand.NewPCG(seed, 0xc0de))
		tr := newTranscript(0)
		var b strings.Builder
		for range 20 + rng.IntN(150) {
			b.WriteString(contextPieces[rng.IntN(len(contextPieces))])
			if rng.IntN(60) == 0 {
				b.WriteString(strings.Repeat("x", rng.IntN(5000))) // Lines longer than the context.
			}
		}
		tr.Write([]byte(b.String()))
		for i := tr.off; i <= len(tr.buf); i++ {
			if i < len(tr.buf) && !utf8.RuneStart(tr.buf[i]) {
				continue
			}
			if rng.IntN(64) != 0 && i != len(tr.buf) {
				continue // A sample of the positions keeps it quick.
			}
			c := tr.contextStart(i)
			full, fullSplit := string(tr.buf[c:]), i-c
			for _, r := range policies {
				got, split := tr.withContextFor(i, r)
				if got[split:] != full[fullSplit:] {
					t.Fatalf("seed %d at %d: text %q, want %q", seed, i, got[split:], full[fullSplit:])
				}
				if r == extra {
					require.Equal(t, full, got, "a policy with extras keeps the whole context")
					continue
				}
				if a, b := streamSpans(r, full, fullSplit), streamSpans(r, got, split); !slices.Equal(a, b) {
					t.Fatalf("seed %d at %d: spans %v with the narrowed context (%d bytes before), %v with the whole (%d bytes before); text from the narrowed start: %.300q", seed, i, b, split, a, fullSplit, got)
				}
			}
		}
	}
}

// TestContainsSinceMatchesContains checks the incremental search of a
// transcript_contains wait against a search of the whole retained text,
// look after look, as random writes (multi-byte characters, needles cut
// across writes) arrive and the bound drops old text.
func TestContainsSinceMatchesContains(t *testing.T) {
	pieces := []string{"a", "b", "ab", "é", "日", "🙂", "aé", "\n", "xyz", "b🙂a"}
	needles := []string{"a", "ab", "aéb", "日日", "🙂a", "b\na", "xyzxyz", "éé", "zz"}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 0x5ea))
		tr := newTranscript(5 + rng.IntN(60))
		searched := make([]int64, len(needles))
		for step := range 200 {
			var b strings.Builder
			for range rng.IntN(4) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			w := []byte(b.String())
			cut := rng.IntN(len(w) + 1) // Split a character across writes now and then.
			tr.Write(w[:cut])
			tr.Write(w[cut:])
			for k, v := range needles {
				found, next := tr.containsSince(v, searched[k])
				require.Equal(t, strings.Contains(tr.String(), v), found, "seed %d step %d needle %q in %q (searched to %d)", seed, step, v, tr.String(), searched[k])
				searched[k] = next
			}
		}
	}
}
