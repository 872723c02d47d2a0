package ptywright_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// burstsOutput is what the "bursts" child writes, in pieces: numbered
// lines, the same for every run.
func burstsOutput() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "%07d %s\n", i, bytes.Repeat([]byte{'a' + byte(i%26)}, i%97))
	}
	return b.Bytes()
}

// writeBursts writes data as the "bursts" child does: pieces from a few
// bytes to 32 KiB, with pauses after some, so that the session's reader
// sees short reads it feeds itself between long ones it hands to the
// parser.
func writeBursts(data []byte) {
	rng := rand.New(rand.NewPCG(1, 2))
	for len(data) > 0 {
		n := 1 + rng.IntN(64)
		if rng.IntN(4) == 0 {
			n = 1 + rng.IntN(32<<10)
		}
		n = min(n, len(data))
		_, _ = os.Stdout.Write(data[:n])
		data = data[n:]
		if rng.IntN(8) == 0 {
			time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
		}
	}
}

// lockedBuffer is an Options.Output tap safe to read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestOutputKeepsItsOrder runs a child that writes short and long pieces
// with pauses between some, so output is fed now by the reader (short
// reads while the parser is idle) and now by the parser (long ones, and
// whatever queued behind them), and checks that the transcript and the
// output tap got every byte once, in order. Under -race it also checks
// that the two feeders never overlap (they write the tap and the screen).
func TestOutputKeepsItsOrder(t *testing.T) {
	want := burstsOutput()
	exe, err := os.Executable()
	require.NoError(t, err)
	for run := range 3 {
		tap := &lockedBuffer{}
		s := start(t, ptywright.Options{
			Program:            "/bin/sh",
			Args:               []string{"-c", `stty raw -echo; exec "$0"`, exe},
			Env:                map[string]string{childModeEnv: "bursts"},
			TranscriptMaxChars: 2 << 20,
			Output:             tap,
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := s.Wait(ctx, ptywright.ProcessExited())
		cancel()
		require.NoError(t, err)
		got := s.Transcript(ptywright.NoRedaction())
		require.True(t, got == string(want), "run %d: transcript differs from what the child wrote (%d bytes, want %d)", run, len(got), len(want))
		tap.mu.Lock()
		require.True(t, bytes.Equal(tap.b.Bytes(), want), "run %d: output tap differs (%d bytes, want %d)", run, tap.b.Len(), len(want))
		tap.mu.Unlock()
	}
}
