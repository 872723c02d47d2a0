//go:build unix

package ptywright_test

import (
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// BenchmarkCloseMany measures closing many sessions of sleep while other
// processes run on the machine, started after the sessions (so their age
// does not rule them out): Close looks through the machine's processes
// for what its session left behind, which must not cost every process's
// files for every Close. "one-by-one" closes them in the order they
// started, each Close after the last; "at-once" closes them all together,
// as Server.Close does.
func BenchmarkCloseMany(b *testing.B) {
	for _, bc := range []struct{ sessions, others int }{{100, 0}, {100, 1000}, {400, 0}} {
		for _, mode := range []string{"one-by-one", "at-once"} {
			b.Run(fmt.Sprintf("sessions=%d/others=%d/%s", bc.sessions, bc.others, mode), func(b *testing.B) {
				var closing time.Duration
				for b.Loop() {
					closing += closeMany(b, bc.sessions, bc.others, mode == "at-once")
				}
				b.ReportMetric(float64(closing.Microseconds())/1000/float64(b.N), "close-ms")
				b.ReportMetric(float64(closing.Microseconds())/1000/float64(b.N*bc.sessions), "ms/session")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// closeMany starts sessions sessions and then others processes, and
// returns how long closing the sessions took.
func closeMany(b *testing.B, sessions, others int, atOnce bool) time.Duration {
	b.Helper()
	all := make([]*ptywright.Session, sessions)
	for i := range all {
		s, err := ptywright.Start(ptywright.Options{Program: "sleep", Args: []string{"300"}})
		require.NoError(b, err)
		all[i] = s
	}
	procs := make([]*exec.Cmd, others)
	for i := range procs {
		procs[i] = exec.Command("sleep", "300")
		require.NoError(b, procs[i].Start())
	}
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill() // Best effort: the bench is done with it.
			_ = p.Wait()
		}
	}()
	start := time.Now()
	if atOnce {
		var wg sync.WaitGroup
		for _, s := range all {
			wg.Go(func() { _ = s.Close() })
		}
		wg.Wait()
	} else {
		for _, s := range all {
			_ = s.Close() // Its errors are not what is measured.
		}
	}
	return time.Since(start)
}
