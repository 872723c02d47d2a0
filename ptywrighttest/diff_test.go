package ptywrighttest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// lcs is the textbook dynamic programme, to check that diffLines finds a
// shortest edit script.
func lcs(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

func TestDiffLinesIsAShortestEditScript(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	words := []string{"a", "b", "c", "d"}
	for range 2000 {
		a := make([]string, rng.IntN(9))
		b := make([]string, rng.IntN(9))
		for i := range a {
			a[i] = words[rng.IntN(len(words))]
		}
		for i := range b {
			b[i] = words[rng.IntN(len(words))]
		}
		ops := diffLines(a, b)
		var gotA, gotB []string
		edits := 0
		for _, o := range ops {
			if o.kind != '+' {
				gotA = append(gotA, o.text)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.text)
			}
			if o.kind != ' ' {
				edits++
			}
		}
		require.Equal(t, strings.Join(a, ","), strings.Join(gotA, ","), "script replays a: %q -> %q", a, b)
		require.Equal(t, strings.Join(b, ","), strings.Join(gotB, ","), "script replays b: %q -> %q", a, b)
		require.Equal(t, len(a)+len(b)-2*lcs(a, b), edits, "shortest: %q -> %q", a, b)
	}
}

func TestUnifiedDiff(t *testing.T) {
	lines := func(s string) []string { return strings.Split(s, ",") }
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"equal", "x,y", "x,y", ""},
		{"one change in the middle", "1,2,3,4,5,6,7,8,9", "1,2,3,4,X,6,7,8,9",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n"},
		{"two hunks", "1,2,3,4,5,6,7,8,9,10,11,12", "X,2,3,4,5,6,7,8,9,10,11,Y",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+Y\n"},
		{"close changes share a hunk", "1,2,3,4,5,6,7", "X,2,3,4,5,6,Y",
			"--- a\n+++ b\n@@ -1,7 +1,7 @@\n-1\n+X\n 2\n 3\n 4\n 5\n 6\n-7\n+Y\n"},
		{"insert only", "1,2", "1,2,3",
			"--- a\n+++ b\n@@ -1,2 +1,3 @@\n 1\n 2\n+3\n"},
		{"from nothing", "", "x",
			"--- a\n+++ b\n@@ -1,1 +1,1 @@\n-\n+x\n"},
		{"control codes escaped", "a\x1b[1mb", "a\tb\r",
			"--- a\n+++ b\n@@ -1,1 +1,1 @@\n-a\\x1b[1mb\n+a\\tb\\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, unifiedDiff("a", "b", lines(tc.a), lines(tc.b), 3))
		})
	}
	require.Equal(t, "--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n", unifiedDiff("a", "b", nil, []string{"x"}, 3))
}

func TestEscapeControls(t *testing.T) {
	require.Equal(t, `a\x1b[31mb\r\n\t\x07\x7f\u009b中文\xff`, escapeControls("a\x1b[31mb\r\n\t\x07\x7f\u009b中文\xff"))
	require.Equal(t, "\tone\\r\\n\n\ttwo\n", indentEscaped("one\r\ntwo", "\t"))
}
