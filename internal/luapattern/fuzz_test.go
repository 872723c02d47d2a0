package luapattern

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzSteps bounds each fuzzed search. Lua has no such bound: a pattern
// such as ".-.-.-.-.-x" backtracks for a time exponential in its length,
// which would stall the fuzzer without telling us anything new.
const fuzzSteps = 100_000

// FuzzFind feeds arbitrary subjects and patterns to the matcher: it must
// neither panic nor overflow the stack, only fail with a *Error, and any
// match it reports must lie inside the subject.
func FuzzFind(f *testing.F) {
	seeds := []struct {
		s, pattern string
		init       int
	}{
		{"hello world", "o w", 1},
		{"x = 10", "(%w+) = (%w+)", 1},
		{"key=val", "()=()", -3},
		{"f(a(b)c) d", "%b()", 1},
		{"THE (quick) fox", "%f[%a]%a+", 1},
		{"xyzzy", "(%a)%1", 1},
		{"a]b", "[]]", 1},
		{"abc", "[^%a-z]+$", 2},
		{"  trim  ", "^%s*(.-)%s*$", 1},
		{strings.Repeat("a", 300), strings.Repeat("a?", 300), 1},
		{"x", strings.Repeat("()", 33), 1},
		{"abc", "%", 1},
		{"abc", "[a", 1},
		{"abc", "(a", 1},
		{"abc", "a)", 1},
		{"1,234 tokens", "%d+ tokens", 1},
		{"a\x00b", "%z", -1},
		{"hello", "h+", math.MinInt},
		{"hello", "h+", math.MaxInt},
	}
	for _, sd := range seeds {
		f.Add(sd.s, sd.pattern, sd.init)
	}
	f.Fuzz(func(t *testing.T, s, pattern string, init int) {
		start, end, caps, ok, err := find(s, pattern, init, fuzzSteps)
		if err != nil {
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.NotEmpty(t, pe.Msg)
			require.False(t, ok)
			return
		}
		from, inRange := startOffset(init, len(s))
		if !strings.ContainsAny(pattern, specials) {
			want := -1
			if inRange {
				if i := strings.Index(s[from:], pattern); i >= 0 {
					want = from + i + 1
				}
			}
			require.Equal(t, want >= 0, ok)
			if ok {
				require.Equal(t, want, start)
			}
		}
		if !ok {
			return
		}
		require.True(t, inRange)
		require.LessOrEqual(t, from+1, start)
		require.LessOrEqual(t, start-1, end)
		require.LessOrEqual(t, end, len(s))
		if strings.HasPrefix(pattern, "^") {
			require.Equal(t, from+1, start, "an anchored match starts at init")
		}
		for _, c := range caps {
			if c.IsPosition() {
				require.LessOrEqual(t, c.Pos, len(s)+1)
			} else {
				require.True(t, strings.Contains(s, c.Text))
			}
		}
	})
}
