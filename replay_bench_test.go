package ptywright_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/asciicast"
	"ptywright/internal/tuitest"
	"ptywright/internal/workload"
)

// repeatRecording plays rec's events n times back to back, as one longer
// session would.
func repeatRecording(rec *asciicast.Recording, n int) *asciicast.Recording {
	out := &asciicast.Recording{Header: rec.Header}
	var offset time.Duration
	for range n {
		for _, ev := range rec.Events {
			ev.Time += offset
			out.Events = append(out.Events, ev)
		}
		offset += rec.Duration() + time.Second
	}
	return out
}

// chunked turns output into a recording of chunk-byte output events.
func chunked(data []byte, chunk int, size ptywright.Size) *asciicast.Recording {
	rec := &asciicast.Recording{Header: asciicast.Header{Version: 2, Width: size.Cols, Height: size.Rows}}
	for i := 0; i < len(data); i += chunk {
		rec.Events = append(rec.Events, asciicast.Event{Time: time.Duration(i) * time.Microsecond, Type: asciicast.EventOutput, Data: string(data[i:min(i+chunk, len(data))])})
	}
	return rec
}

func benchRecordings(b *testing.B) map[string]*asciicast.Recording {
	b.Helper()
	size := ptywright.Size{Rows: 24, Cols: 80}
	return map[string]*asciicast.Recording{
		"claude_code_turn": repeatRecording(readRecording(b, claudeTurnCast), 20),
		"vim":              repeatRecording(readRecording(b, filepath.Join("testdata", "recordings", "vim.cast")), 20),
		"plain_scroll":     chunked(plainScroll(256<<10), 4096, size),
		"mixed_tui":        chunked(workload.MixedRedraws(256<<10, size.Rows), 4096, size),
	}
}

// BenchmarkReplay measures how fast a recording's output goes through a
// Screen at full speed (MB/s of output events).
func BenchmarkReplay(b *testing.B) {
	for _, name := range []string{"claude_code_turn", "vim", "plain_scroll", "mixed_tui"} {
		rec := benchRecordings(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(rec.OutputBytes())
			for b.Loop() {
				_, err := ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{})
				require.NoError(b, err)
			}
		})
	}
}

// countingClassifier is a Go classifier of the kind a plugin is: a few
// substring checks on the body and status text.
type countingClassifier struct {
	vimModes
	calls atomic.Int64
}

func (c *countingClassifier) Classify(_ context.Context, cc ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	c.calls.Add(1)
	switch {
	case strings.Contains(cc.StatusText, "esc to interrupt"):
		return ptywright.StateSnapshot{State: "thinking"}, nil
	case strings.Contains(cc.BodyText, "● ") && strings.Contains(cc.Screen, "❯\u00a0"):
		return ptywright.StateSnapshot{State: "completed_turn"}, nil
	case strings.Contains(cc.Screen, "❯\u00a0"):
		return ptywright.StateSnapshot{State: "ready"}, nil
	}
	return ptywright.StateSnapshot{State: "starting"}, nil
}

// BenchmarkReplayClassify measures replay through a classifier: the cost
// per classification on top of the replay itself (building the context:
// snapshot, body/status split, transcript tail; and the Go classifier).
func BenchmarkReplayClassify(b *testing.B) {
	for _, name := range []string{"claude_code_turn", "vim"} {
		rec := benchRecordings(b)[name]
		b.Run(name, func(b *testing.B) {
			// The replay alone, to subtract.
			const warm = 5
			start := time.Now()
			for range warm {
				_, err := ptywright.Replay(context.Background(), rec, ptywright.ReplayOptions{})
				require.NoError(b, err)
			}
			replayOnly := time.Since(start) / warm

			ext := &countingClassifier{}
			var states int
			b.ResetTimer()
			for b.Loop() {
				changes, err := ptywright.ReplayClassify(context.Background(), rec, ext, ptywright.ReplayOptions{})
				require.NoError(b, err)
				states = len(changes)
			}
			perOp := b.Elapsed() / time.Duration(b.N)
			calls := float64(ext.calls.Load()) / float64(b.N)
			b.ReportMetric(calls, "classifies/op")
			b.ReportMetric(float64(states), "states/op")
			b.ReportMetric(float64(perOp-replayOnly)/calls, "ns/classify")
		})
	}
}

func TestBenchmarkClassifierSeesTheClaudeTurn(t *testing.T) {
	// The benchmark's classifier is only meaningful if it tracks the turn.
	changes, err := ptywright.ReplayClassify(context.Background(), readRecording(t, claudeTurnCast), &countingClassifier{}, ptywright.ReplayOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"starting", "ready", "thinking", "completed_turn"}, statesOf(changes), fmt.Sprint(tuitest.MustJSON(changes)))
}
