package ptywright_test

import (
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
