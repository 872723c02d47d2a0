package ptywright_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"ptywright/internal/tuitest"
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
		if leaked := tuitest.Leaked(2 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines leaked by ptywright:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
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
		if leaked := tuitest.Leaked(2 * time.Second); leaked != "" {
			t.Errorf("goroutines leaked:\n%s", leaked)
		}
	})
}
