package ptywright_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
	"ptywright/internal/workload"
)

// plainScroll is text that scrolls the screen line after line.
func plainScroll(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %06d the quick brown fox jumps over the lazy dog 0123456789\r\n", i)
	}
	return []byte(b.String())
}

// BenchmarkScreenThroughput measures bytes per second from a child's output
// through the PTY, Session and Screen until the child has exited and its
// output is parsed.
func BenchmarkScreenThroughput(b *testing.B) {
	sizes := []ptywright.Size{{Rows: 24, Cols: 80}, {Rows: 60, Cols: 200}}
	for _, size := range sizes {
		for _, kind := range []string{"plain", "mixed"} {
			b.Run(fmt.Sprintf("%s/%dx%d", kind, size.Cols, size.Rows), func(b *testing.B) {
				data := plainScroll(256 << 10)
				if kind == "mixed" {
					data = workload.MixedRedraws(256<<10, size.Rows)
				}
				path := filepath.Join(b.TempDir(), "out")
				require.NoError(b, os.WriteFile(path, data, 0o600))
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					s, err := ptywright.Start(ptywright.Options{Program: "/bin/cat", Args: []string{path}, Size: size})
					require.NoError(b, err)
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					_, err = s.Wait(ctx, ptywright.ProcessExited())
					cancel()
					require.NoError(b, err)
					require.NoError(b, s.Close())
				}
			})
		}
	}
}

// BenchmarkScreenParse measures the Screen alone, without a process.
func BenchmarkScreenParse(b *testing.B) {
	for _, size := range []ptywright.Size{{Rows: 24, Cols: 80}, {Rows: 60, Cols: 200}} {
		for _, kind := range []string{"plain", "mixed"} {
			b.Run(fmt.Sprintf("%s/%dx%d", kind, size.Cols, size.Rows), func(b *testing.B) {
				data := plainScroll(256 << 10)
				if kind == "mixed" {
					data = workload.MixedRedraws(256<<10, size.Rows)
				}
				scr, err := ptywright.NewScreen(size)
				require.NoError(b, err)
				defer scr.Close()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					for off := 0; off < len(data); off += 4096 {
						_, _ = scr.Write(data[off:min(off+4096, len(data))])
					}
				}
			})
		}
	}
}

func reportLatencies(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkOutputToChange measures the time from the child writing a line to
// a goroutine blocked on the session seeing the new sequence (a wait on the
// transcript, evaluated on the wake-up the new sequence causes).
func BenchmarkOutputToChange(b *testing.B) {
	s := startChild(b, "stamp")
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		send(b, s, ptywright.Text(fmt.Sprintf("%d\n", i)))
		_, err := s.Wait(ctx, ptywright.TranscriptContains(fmt.Sprintf("M%d T=", i)))
		require.NoError(b, err)
		seen := time.Now()
		text := s.OutputSince(0, ptywright.NoRedaction()).Text
		at, ok := tuitest.StampOf(text, i)
		require.True(b, ok)
		lat = append(lat, seen.Sub(at))
	}
	reportLatencies(b, lat)
}
