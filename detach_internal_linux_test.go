//go:build linux

package ptywright

import (
	"os"
	"testing"
)

// BenchmarkDetachedScan measures one scan of /proc for a session's
// processes (the process tree and the marker), which Close runs a few
// times: "all" reads every process's environment (a session as old as the
// machine), "new" only those started since now.
func BenchmarkDetachedScan(b *testing.B) {
	for _, bc := range []struct {
		name  string
		since uint64
	}{{"all", 0}, {"new", processStart(os.Getpid())}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportMetric(float64(len(procPids())), "procs")
			for b.Loop() {
				d := trackDetached(1<<30, bc.since, newMarker())
				d.release()
			}
		})
	}
}
