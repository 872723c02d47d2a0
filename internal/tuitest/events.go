package tuitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"ptywright/events"
)

// LogBuffer is what JSONLogger writes into: safe for a slog handler
// writing from other goroutines while the test reads.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p under the buffer's lock (io.Writer, for the handler).
func (s *LogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// Records decodes the JSON log lines written so far.
func (s *LogBuffer) Records(tb testing.TB) []map[string]any {
	tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range bytes.Lines(s.b.Bytes()) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			tb.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// Matching returns the records whose msg is msg.
func (s *LogBuffer) Matching(tb testing.TB, msg string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for _, rec := range s.Records(tb) {
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// JSONLogger returns a logger writing JSON records at debug level into a
// buffer the test reads.
func JSONLogger() (*slog.Logger, *LogBuffer) {
	buf := &LogBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// Collect subscribes to bus until the test ends and returns a channel of
// every event.
func Collect(tb testing.TB, bus *events.Bus) <-chan events.Event {
	tb.Helper()
	ch := make(chan events.Event, 1024)
	tb.Cleanup(bus.Subscribe(func(ev events.Event) { ch <- ev }))
	return ch
}

// NextEvent returns the next event named name, skipping others, failing
// after 10 s.
func NextEvent(tb testing.TB, ch <-chan events.Event, name string) events.Event {
	tb.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Name == name {
				return ev
			}
		case <-timeout:
			tb.Fatalf("no %s event", name)
		}
	}
}

// NoLeak fails the test if goroutines of ours outlive it. Call it first so
// its cleanup runs after the sessions' Close.
func NoLeak(tb testing.TB) {
	tb.Helper()
	tb.Cleanup(func() {
		if leaked := Leaked(2 * time.Second); leaked != "" {
			tb.Errorf("goroutines leaked:\n%s", leaked)
		}
	})
}

// MustJSON is v's JSON, or "<error>" when it has none.
func MustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}
