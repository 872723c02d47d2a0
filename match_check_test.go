package ptywright

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatcherCheckFindsWhatCompileFinds: validating a matcher (Validate,
// decoding one) parses its regular expressions without compiling them;
// it must accept and refuse exactly what a wait's compile does, with the
// same message, anywhere in the tree.
func TestMatcherCheckFindsWhatCompileFinds(t *testing.T) {
	patterns := []string{
		`M\d+ T=\d+`, `(a|b)*c`, `(?i)prompt> $`, `\pL+`, `[[:alpha:]]`, `(?P<name>x)`, `x{2,5}`,
		`(`, `)`, `[a-`, `x{2,1}`, `*a`, `a**`, `(?P<n>a)(?P<n>b)`, `\8`, `(?<`, `x{1001}`, `\pX`,
		strings.Repeat("(", 1001) + strings.Repeat(")", 1001), "(?:" + strings.Repeat("a{1000}", 2) + "){1000}",
		strings.Repeat(`[a-z]{1000}`, 200), "\xff",
	}
	for _, p := range patterns {
		for _, m := range []Matcher{
			ScreenRegex(p),
			TranscriptRegex(p),
			Any(ContainsText("x"), All(ScreenStable(10), TranscriptRegex(p))),
		} {
			_, compileErr := compileMatcher(m, "matcher")
			checkErr := m.Validate()
			if compileErr == nil {
				require.NoError(t, checkErr, "%q", p)
				continue
			}
			require.Error(t, checkErr, "%q", p)
			require.Equal(t, compileErr.Error(), checkErr.Error(), "%q", p)
			require.ErrorIs(t, checkErr, ErrInvalidMatcher)
		}
	}
}
