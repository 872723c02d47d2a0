package ptywright

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openSecretTailRef is openSecretTail without its trigger check: the
// reference it must equal.
func openSecretTailRef(s string) int { return openTailIf(s, func(string) bool { return true }) }

// tailPieces make the ends of texts the open-tail pattern may match: each
// of its alternatives' literal parts in several cases, separators,
// values, and text around them.
var tailPieces = []string{
	"sk-", "sk_", "rk_", "ghp_", "gho_", "github_pat_", "glpat-", "glrt-", "xoxb-", "AKIA", "ASIA", "AIza", "ya29.", "eyJ",
	"npm_", "whsec_", "api_key", "API-KEY", "apikey", "ApiKey", "token", "TOKEN", "tOkEn", "secret", "Secret", "password",
	"PASSWD", "passphrase", "authorization", "Authorization", "bearer", "Bearer", "BEARER", "https://", "git+ssh://",
	"-----BEGIN ", "RSA PRIVATE", "=", ": ", ":=", "\"", "'", "\\\"", " ", "\t", "Basic ", "Token ", "user", ":", "@",
	"abc", "Q7x9", "0123", "-", "_", ".", "/", "\r\n", "\x1b[1m", "\x1b[0m", "X\b", "─", "é",
	// What (?i) takes for k and s: the Kelvin sign and the long s.
	"api\u212aey", "to\u212aen", "pa\u017f\u017fword", "\u017fecret",
}

// TestOpenSecretTailMatchesReference: skipping the regexp when the window
// holds no trigger word never changes what openSecretTail holds, on
// random ends of text built from every alternative's parts.
func TestOpenSecretTailMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	matched := 0
	for range 10000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(tailPieces[rng.IntN(len(tailPieces))])
		}
		s := b.String()
		want := openSecretTailRef(s)
		if want >= 0 {
			matched++
		}
		require.Equal(t, want, openSecretTail(s), "%q", s)
	}
	require.Greater(t, matched, 1000, "the texts exercise the pattern")
	for _, s := range []string{"pa\u017f\u017fword=hu", "API_\u212aEY: abc", "x to\u212aen=Q7", "\u017fecret: v"} {
		require.GreaterOrEqual(t, openSecretTailRef(s), 0, "%q: (?i) folds these", s)
		require.Equal(t, openSecretTailRef(s), openSecretTail(s), "%q", s)
	}
}

func FuzzOpenSecretTail(f *testing.F) {
	f.Add("KEY sk-ant-api03-Q7")
	f.Add("Authorization: Basic dXNl")
	f.Add("postgres://app:s3c")
	f.Add("x pa\u017f\u017fword=hu")
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, openSecretTailRef(s), openSecretTail(s))
	})
}
