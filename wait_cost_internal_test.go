package ptywright

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"ptywright/internal/workload"
)

// BenchmarkWaitCost measures the CPU a wait spends once the output it
// waits for has come: the session's feed of one chunk (screen, transcript,
// wake-up), then Wait from its start to its result (compiling the
// matcher, looking at the screen, the evidence: snapshot, transcript tail,
// all redacted). The chunk is fed as the reader would feed it, without a
// PTY in between, so that the figure is ours alone and instruction counts
// (callgrind) repeat; BenchmarkWaitLatency is the same wait end to end.
// "lines": a program printing a line at a time (the stamp child);
// "claude": Claude Code's redraws, a frame at a time.
func BenchmarkWaitCost(b *testing.B) {
	frames := bytes.SplitAfter(workload.ClaudeRedraws(1<<20, 24, 80), []byte("? for shortcuts\x1b[22m"))
	frames = frames[:len(frames)-1] // the empty piece after the last frame
	for _, w := range []struct {
		name  string
		chunk func(i int) []byte
		want  func(i int) string
	}{
		{"lines", func(i int) []byte { return fmt.Appendf(nil, "M%d T=1764121234567890123\r\n", i) }, func(i int) string { return fmt.Sprintf(`M%d T=\d+`, i) }},
		{"claude", func(i int) []byte { return frames[i%len(frames)] }, func(i int) string { return fmt.Sprintf(`of frame %d\b`, i%len(frames)) }},
	} {
		b.Run(w.name, func(b *testing.B) {
			s, err := Start(Options{Program: "/bin/sleep", Args: []string{"1000"}})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }() // Best effort: the benchmark is done.
			ctx := context.Background()
			i := 0
			for b.Loop() {
				i++
				s.feed([][]byte{w.chunk(i)})
				res, err := s.Wait(ctx, ScreenRegex(w.want(i)))
				if err != nil || !res.Matched {
					b.Fatal(err)
				}
			}
		})
	}
}
