package plugins_test

import (
	"testing"
	"time"

	"ptywright"
	"ptywright/internal/tuitest"
)

// testLimits keep runaway tests short: about a millisecond of Lua. The
// instruction budget is what trips; the clock is only a backstop.
var testLimits = ptywright.PluginLimits{Instructions: 200_000, Timeout: 30 * time.Second}

// TestMain fails the run when library goroutines outlive the tests.
func TestMain(m *testing.M) { tuitest.Main(m) }
