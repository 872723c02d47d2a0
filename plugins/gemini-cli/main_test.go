package geminicli_test

import (
	"testing"

	"ptywright/internal/tuitest"
)

// TestMain closes the shared plugin registry, then fails the run when
// library goroutines outlive the tests.
func TestMain(m *testing.M) { tuitest.MainAfter(m, tuitest.CloseSharedPlugins) }
