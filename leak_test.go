package ptywright_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when any goroutine of ours outlives the tests:
// every Session and Screen must stop what it started.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childModeEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	code := m.Run()
	removeMenu()
	if code == 0 {
		if leaked := ourGoroutines(2 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked by ptywright:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// ourGoroutines waits up to d for goroutines running ptywright code to end
// and returns the stacks of those still alive.
func ourGoroutines(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "ptywright.(*") && !strings.Contains(g, "ptywright_test.") &&
				!strings.Contains(g, "testing.tRunner") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

// noLeak fails the test if goroutines of ours outlive it. Call it first so
// its cleanup runs after the sessions' Close.
func noLeak(t *testing.T) {
	t.Helper()
	t.Cleanup(func() {
		if leaked := ourGoroutines(2 * time.Second); leaked != "" {
			t.Errorf("goroutines leaked:\n%s", leaked)
		}
	})
}
