package ptywright_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"ptywright"
)

// BenchmarkWaitWhileRecording: a wait that matches at once, on a session
// whose program floods output, with and without a recording. Every wait
// looks at the screen under the session's lock; what the recording does
// with each chunk (redaction, the file write) must not sit under it.
func BenchmarkWaitWhileRecording(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "plain"
		if rec {
			name = "recording"
		}
		b.Run(name, func(b *testing.B) {
			opts := ptywright.Options{Program: "yes", Args: []string{"a line of output with API_KEY=not-a-secret-at-all and more words"}}
			if rec {
				opts.RecordPath = filepath.Join(b.TempDir(), "flood.cast")
			}
			s, err := ptywright.Start(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			m := ptywright.ContainsText("a line of output")
			if _, err := s.Wait(ctx, m); err != nil {
				b.Fatal(err)
			}
			var worst time.Duration
			for b.Loop() {
				t := time.Now()
				if _, err := s.Wait(ctx, m); err != nil {
					b.Fatal(err)
				}
				worst = max(worst, time.Since(t))
			}
			b.ReportMetric(float64(worst.Microseconds()), "worst-us")
		})
	}
}
