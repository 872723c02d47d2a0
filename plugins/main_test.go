package plugins_test

import (
	"testing"

	"ptywright/internal/tuitest"
)

// TestMain fails the run when library goroutines outlive the tests.
func TestMain(m *testing.M) { tuitest.Main(m) }
