package recache

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCompile: a pattern compiled twice is one Regexp that matches like
// regexp.Compile's; an invalid one gives regexp.Compile's error each time;
// the cache stays within its bound and long patterns are not kept.
func TestCompile(t *testing.T) {
	a, err := Compile(`M\d+ T=`)
	require.NoError(t, err)
	b, err := Compile(`M\d+ T=`)
	require.NoError(t, err)
	require.Same(t, a, b)
	require.Equal(t, regexp.MustCompile(`M\d+ T=`).FindStringIndex("x M12 T=3"), a.FindStringIndex("x M12 T=3"))

	bad := strings.Repeat("(", 1) // built at run time: a constant invalid pattern is a vet finding
	_, want := regexp.Compile(bad)
	for range 2 {
		_, err = Compile(bad)
		require.EqualError(t, err, want.Error())
	}

	for i := range 3 * maxEntries {
		_, err := Compile(fmt.Sprintf("p%d", i))
		require.NoError(t, err)
		mu.Lock()
		n := len(cache)
		mu.Unlock()
		require.LessOrEqual(t, n, maxEntries)
	}
	long := strings.Repeat("a", maxLen+1)
	_, err = Compile(long)
	require.NoError(t, err)
	mu.Lock()
	_, kept := cache[long]
	mu.Unlock()
	require.False(t, kept)
}

// TestCompileConcurrent: callers on many goroutines share the cache (run
// with -race).
func TestCompileConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				re, err := Compile(fmt.Sprintf("x%d", (g*7+i)%300))
				require.NoError(t, err)
				require.True(t, re.MatchString(fmt.Sprintf("x%d", (g*7+i)%300)))
			}
		})
	}
	wg.Wait()
}
