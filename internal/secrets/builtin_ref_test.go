package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"ptywright/internal/workload"
)

// indexTriggerRef is indexTrigger as it was before it skipped eight
// positions at a time (a position at a time, with the same word match): the
// reference the fast one must equal.
func indexTriggerRef(s string, from int) (int, trigger) {
	for i := from; i < len(s)-2; i++ {
		// Cheap reject on the first two bytes before comparing words.
		f := triggerFirst[s[i]]
		if f == 0 || f&triggerSecond[s[i+1]] == 0 {
			continue
		}
		if t := triggerAt(s[i:]); t != trigNone {
			return i, t
		}
	}
	return -1, trigNone
}

// triggerPieces make texts dense in triggers, their first two bytes and
// near misses, at every alignment of the eight-position skip.
var triggerPieces = []string{
	"a", "k", "s", "t", "g", "e", "x", "y", "n", "r", "w", "b", "p", ":", "-", "/", " ", "_", "0", "\x1b[1m", "─",
	"akia", "ASIA", "AIza", "authorization", "bearer", "eyJ", "ghp_", "github_pat_", "gl", "glpat-", "key", "KEY",
	"npm_", "pass", "rk_", "sk-", "sk_", "secret", "token", "whsec_", "xox", "ya29.", "://", "-----BEGIN ", "----",
}

// TestIndexTriggerMatchesReference: from every start, the fast
// indexTrigger finds the trigger the reference finds, on random texts and
// on a TUI's output.
func TestIndexTriggerMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	texts := []string{"", "g", "gl", "xgl", "0123456789gl", "0123456789glx", string(workload.ClaudeRedraws(2048, 24, 80)), string(workload.MixedRedraws(2048, 24))}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(triggerPieces[rng.IntN(len(triggerPieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		for from := 0; from <= len(s); from++ {
			h, tr := indexTrigger(s, from)
			rh, rtr := indexTriggerRef(s, from)
			require.Equal(t, [2]int{rh, int(rtr)}, [2]int{h, int(tr)}, "%q from %d", s, from)
		}
	}
}

func FuzzIndexTrigger(f *testing.F) {
	f.Add("xxxxxxxxxxxxxxxxgl", 0)
	f.Add("the token: sk-abc ://x -----BEGIN ", 3)
	f.Fuzz(func(t *testing.T, s string, from int) {
		from = max(0, min(from, len(s)))
		h, tr := indexTrigger(s, from)
		rh, rtr := indexTriggerRef(s, from)
		require.Equal(t, [2]int{rh, int(rtr)}, [2]int{h, int(tr)})
	})
}

// TestPlain: a plain text holds no span of the default patterns, raw or as
// shown; and a text is plain exactly when its parts before and after any
// cut are, the second starting MaxTriggerLen-1 bytes before the cut (what
// a scan that goes on from an earlier one relies on). Fails if
// MaxTriggerLen is shorter than a trigger word.
func TestPlain(t *testing.T) {
	pieces := append(slices.Clone(triggerPieces), "\b", "\u212a", "\u017f", "=", "abcdefghijkl", "sk-ant-api03-AbCdEf0123456789xyzXYZ")
	rng := rand.New(rand.NewPCG(9, 10))
	spans := func(s string) [][2]int { return Spans(s, "[REDACTED]", nil) }
	plain := 0
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if Plain(s) {
			plain++
			require.Empty(t, ThroughEscapes(s, spans), "%q", s)
		}
		k := rng.IntN(len(s) + 1)
		require.Equal(t, Plain(s), Plain(s[:k]) && Plain(s[max(0, k-(MaxTriggerLen-1)):]), "%q cut at %d", s, k)
	}
	require.NotZero(t, plain)
}
