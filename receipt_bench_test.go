package ptywright_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"ptywright"
	"ptywright/manifest"
)

// catExtension types a marker into cat; with expect, its receipt waits for
// cat's copy of it. Its classifier is trivial, so the benchmark measures the
// host, not a plugin.
type catExtension struct {
	expect bool
}

func (e *catExtension) Manifest() manifest.Manifest {
	return manifest.Manifest{Name: "cat", Kind: manifest.KindAdapter, Version: "1.0.0", Runtime: manifest.RuntimeLua, Entrypoint: "main.lua"}
}

func (e *catExtension) Classify(context.Context, ptywright.ClassifyContext) (ptywright.StateSnapshot, error) {
	return ptywright.StateSnapshot{State: "idle"}, nil
}

func (e *catExtension) Plan(_ context.Context, _ string, params json.RawMessage) (ptywright.ActionPlan, error) {
	var p struct{ Text string }
	if err := json.Unmarshal(params, &p); err != nil {
		return ptywright.ActionPlan{}, err
	}
	plan := ptywright.ActionPlan{Actions: []ptywright.Action{ptywright.Text(p.Text + "\r")}}
	if e.expect {
		// cat's copy: the marker on a line of its own after the echo.
		m := ptywright.ScreenRegex(`(?m)^` + p.Text + `\n` + p.Text + `$`)
		plan.Expect = &ptywright.Expectation{Matcher: &m}
	}
	return plan, nil
}

func (e *catExtension) WaitMatcher(context.Context, string, json.RawMessage) (ptywright.Matcher, error) {
	return ptywright.ProcessExited(), nil
}

func (e *catExtension) Close() error { return nil }

// BenchmarkSendReceipt measures what a receipt adds to a send on an idle
// screen: "expectation" is the write and a session wait for cat's copy
// (the expectation itself, without the handle); "confirmed" is a Send whose
// receipt waits for the same copy; "unverified" a Send with no expectation
// (the write, two classifications, no waiting). receipt-overhead-µs is
// confirmed minus expectation.
func BenchmarkSendReceipt(b *testing.B) {
	run := func(b *testing.B, mode string) float64 {
		s, err := ptywright.Start(ptywright.Options{Program: "/bin/sh", Args: []string{"-c", "cat"}})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		h := ptywright.NewExtensionHandle(s, &catExtension{expect: mode == "confirmed"}, ptywright.HandleOptions{})
		defer h.Close()
		ctx := context.Background()
		b.ResetTimer()
		for i := range b.N {
			text := fmt.Sprintf("m%d", i)
			switch mode {
			case "expectation":
				w, err := s.Perform(ctx, ptywright.Text(text+"\r"))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Wait(ctx, ptywright.ScreenRegex(`(?m)^`+text+`\n`+text+`$`), ptywright.After(w.Sequence)); err != nil {
					b.Fatal(err)
				}
			default:
				res, err := h.Send(ctx, "type", json.RawMessage(`{"text":"`+text+`"}`))
				if err != nil {
					b.Fatal(err)
				}
				if want := map[string]ptywright.Effect{"confirmed": ptywright.EffectConfirmed, "unverified": ptywright.EffectUnverified}[mode]; res.Receipt.Effect != want {
					b.Fatalf("%s: receipt %+v", mode, res.Receipt)
				}
			}
		}
		b.StopTimer()
		per := float64(b.Elapsed().Microseconds()) / float64(b.N)
		b.ReportMetric(per, "µs/send")
		return per
	}
	var base float64
	for _, mode := range []string{"expectation", "confirmed", "unverified"} {
		b.Run(mode, func(b *testing.B) {
			per := run(b, mode)
			if mode == "expectation" {
				base = per
			}
			if mode == "confirmed" && base > 0 {
				b.ReportMetric(per-base, "receipt-overhead-µs")
			}
		})
	}
}
