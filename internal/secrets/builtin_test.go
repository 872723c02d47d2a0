package secrets

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIndexTrigger guards the prefilter: each trigger word is found in any
// ASCII case and mapped to the pattern it starts.
func TestIndexTrigger(t *testing.T) {
	tests := []struct {
		in   string
		at   int
		trig trigger
	}{
		{"", -1, trigNone},
		{"ke", -1, trigNone},
		{"nothing here", -1, trigNone},
		{"..bearer", 2, trigBearer},
		{"..BeArEr", 2, trigBearer},
		{"sk-", 0, trigSK},
		{"SK-", 0, trigSK},
		{"sk\r", -1, trigNone},
		{"xAKIA", 1, trigAWS},
		{"asia", 0, trigAWS},
		{"x key", 2, trigKV},
		{"TOKEN", 0, trigKV},
		{"Secret", 0, trigKV},
		{"passwd", 0, trigKV},
		{"Passphrase", 0, trigKV},
		{"Authorization", 0, trigKV},
		{"aut", -1, trigNone},
		{"tok token", 4, trigKV},
		{"x ghp_", 2, trigToken},
		{"github_pat_", 0, trigToken},
		{"glpat-", 0, trigToken},
		{"xoxb-", 0, trigToken},
		{"sk_live_", 0, trigToken},
		{"rk_live_", 0, trigToken},
		{"whsec_", 0, trigToken},
		{"AIza", 0, trigToken},
		{"aiza", -1, trigNone},
		{"ya29.", 0, trigToken},
		{"npm_", 0, trigToken},
		{"eyJhb", 0, trigToken},
		{"eyj", -1, trigNone},
		{"https://x", 5, trigURL},
		{"-----BEGIN RSA", 0, trigPEM},
		{"---------", -1, trigNone},
	}
	for _, tt := range tests {
		at, trig := indexTrigger(tt.in, 0)
		require.Equal(t, tt.at, at, tt.in)
		require.Equal(t, tt.trig, trig, tt.in)
	}
	at, trig := indexTrigger("token token", 1)
	require.Equal(t, 6, at)
	require.Equal(t, trigKV, trig)
}
