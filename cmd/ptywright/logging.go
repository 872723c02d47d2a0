package main

import (
	"context"
	"io"
	"log/slog"

	"ptywright"
)

// newLogger returns the diagnostics logger: text on w (stderr, never the
// protocol stream), with every message and string value redacted with the
// default policy, since a path or an error may quote a secret.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(redactingHandler{slog.NewTextHandler(w, nil)})
}

// redactingHandler redacts records on their way to the next handler.
type redactingHandler struct{ next slog.Handler }

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	red := slog.NewRecord(r.Time, r.Level, redactText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		red.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, red)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = redactAttr(a)
	}
	return redactingHandler{h.next.WithAttrs(out)}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{h.next.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redactText(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]any, len(group))
		for i, g := range group {
			out[i] = redactAttr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redactText(err.Error()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func redactText(s string) string { return ptywright.DefaultRedactor().Redact(s) }
