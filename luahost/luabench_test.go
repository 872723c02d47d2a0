package luahost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/events"
	"ptywright/internal/tuitest"
	"ptywright/luahost"
	"ptywright/manifest"
)

// benchScreen is a 200x60 screen of a TUI asking for a tool permission:
// 57 body rows of conversation and a numbered menu, 3 status rows.
func benchScreen() ptywright.ClassifyContext {
	const cols = 200
	var rows []string
	for i := range 44 {
		line := fmt.Sprintf("  ⏺ Step %d: read the module, checked the callers of parse_config() and updated the tests in pkg/config/loader_test.go", i)
		rows = append(rows, pad(line, cols))
	}
	rows = append(rows,
		pad("╭──────────────────────────────────────────────────────────────────────────────╮", cols),
		pad("│ Bash command                                                                 │", cols),
		pad("│   Bash(go test ./pkg/config/...)                                             │", cols),
		pad("│ Do you want to proceed?                                                      │", cols),
		pad("│ ❯ 1. Yes                                                                     │", cols),
		pad("│   2. Yes, and don't ask again for go test commands in this project           │", cols),
		pad("│   3. No, and tell Claude what to do differently (esc)                        │", cols),
		pad("╰──────────────────────────────────────────────────────────────────────────────╯", cols),
	)
	for len(rows) < 57 {
		rows = append(rows, pad("", cols))
	}
	status := []string{
		pad("  ? for shortcuts", cols),
		pad("  ~/src/project  main  ⎇ 3 files changed", cols),
		pad("  Model: opus · 12.4k tokens · auto-accept off", cols),
	}
	body := strings.Join(rows, "\n")
	st := strings.Join(status, "\n")
	tail := strings.Repeat("x", 4096) // the transcript tail a classifier sees
	stable, threshold := int64(450), int64(300)
	intent := "prompt_submitted"
	return ptywright.ClassifyContext{
		Screen: body + "\n" + st, BodyText: body, StatusText: st, Transcript: &tail, Sequence: 1234,
		LastIntent: &intent, StableMs: &stable, CompletedTurnStableMs: &threshold,
	}
}

func pad(s string, cols int) string {
	if n := cols - len([]rune(s)); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

func classifierExtension(tb testing.TB) *luahost.Extension {
	tb.Helper()
	lm, err := manifest.LoadFile("../testdata/plugins/classifier/manifest.toml")
	require.NoError(tb, err)
	src, err := lm.ReadSource()
	require.NoError(tb, err)
	ext, err := luahost.New(lm.Manifest, src, luahost.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, ext.Close()) })
	return ext
}

func TestBenchClassifierRecognisesThePrompt(t *testing.T) {
	st, err := classifierExtension(t).Classify(context.Background(), benchScreen())
	require.NoError(t, err)
	require.Equal(t, "waiting_for_permission", st.State)
	require.JSONEq(t, `{"options":3,"prompt":"permission","tool":"Bash"}`, st.Evidence)
	require.Equal(t, int64(1), st.Metadata["selected"])
	opts := st.Metadata["options"].([]any)
	require.Len(t, opts, 3)
	require.Equal(t, map[string]any{"index": int64(2), "label": "Yes, and don't ask again for go test commands in this project"}, opts[1])
}

// BenchmarkClassify measures one classify call of a realistic classifier
// on a 200x60 screen: conversion of the context to Lua, the plugin's
// checks and menu parsing, and decoding its answer.
func BenchmarkClassify(b *testing.B) {
	tuitest.BenchClassify(b, classifierExtension(b), benchScreen())
}

// BenchmarkClassifyMemoryBudget measures what the memory budget costs a
// classify call (BenchmarkClassify's): calls alternate between the state
// reporting its growth to the budget, as it always does, and the report
// removed, so both halves run under the same load of a shared machine, and
// each half's median time per call is reported (a median shrugs off the
// calls another process delayed). overhead_% compares the medians.
func BenchmarkClassifyMemoryBudget(b *testing.B) {
	ext := classifierExtension(b)
	cc := benchScreen()
	ctx := context.Background()
	var with, without []time.Duration
	i := 0
	for b.Loop() {
		on := i%2 == 0
		i++
		luahost.MemoryHookForBench(ext, on)
		start := time.Now()
		if _, err := ext.Classify(ctx, cc); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(start); on {
			with = append(with, d)
		} else {
			without = append(without, d)
		}
	}
	luahost.MemoryHookForBench(ext, true)
	if len(with) == 0 || len(without) == 0 {
		return // too few calls to compare (-benchtime=1x)
	}
	mWith, mWithout := median(with), median(without)
	b.ReportMetric(float64(mWith.Nanoseconds())/1e3, "µs/call")
	b.ReportMetric(float64(mWithout.Nanoseconds())/1e3, "µs/call-unbudgeted")
	b.ReportMetric(100*float64(mWith-mWithout)/float64(mWithout), "overhead_%")
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkLuaEmit measures ptywright.emit from Lua to a Go subscriber:
// conversion of a small payload, the namespace check and delivery.
func BenchmarkLuaEmit(b *testing.B) {
	bus := events.New(nil)
	var n int
	defer bus.Subscribe(func(events.Event) { n++ })()
	m := manifest.Manifest{Name: "bench", Kind: manifest.KindMacro, Version: "1", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
	ext, err := luahost.New(m, []byte(`local M = {}
function M.burst(k) for i = 1, k do ptywright.emit("tick", {i = i, state = "ready"}) end end
return M`), luahost.Options{Events: bus})
	if err != nil {
		b.Fatal(err)
	}
	defer ext.Close()
	const perCall = 1000
	args := json.RawMessage(`[1000]`)
	b.ResetTimer()
	for b.Loop() {
		if _, err := ext.CallHook(context.Background(), "burst", args, luahost.HookOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perCall), "ns/emit")
	if n != b.N*perCall {
		b.Fatalf("delivered %d of %d", n, b.N*perCall)
	}
}
