//go:build !unix

package vtcore_test

import "time"

// cpuTime is not measured here; the benchmark then reports 0.
func cpuTime() time.Duration { return 0 }
