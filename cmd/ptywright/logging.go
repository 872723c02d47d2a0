package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"ptywright"
)

// logEnv names the environment variable that sets the default log level
// (--log-level overrides it).
const logEnv = "PTYWRIGHT_LOG"

const logLevelUsage = "log diagnostics at `LEVEL` and above: debug|info|warn|error, default info or $" + logEnv + "; debug shows plugins' log.debug lines"

// logLevel is a flag.Value naming a slog level; its zero value is info.
type logLevel slog.Level

func (v *logLevel) String() string { return strings.ToLower(slog.Level(*v).String()) }

func (v *logLevel) Set(s string) error {
	l, err := parseLogLevel(s)
	if err != nil {
		return err
	}
	*v = logLevel(l)
	return nil
}

func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("must be debug, info, warn or error")
}

// resolveLogLevel fills in the level from $PTYWRIGHT_LOG when --log-level
// was not given; a bad value is a usage error of cmd.
func resolveLogLevel(cmd string, flagSet bool, lvl *logLevel) error {
	if flagSet {
		return nil
	}
	env := os.Getenv(logEnv)
	if env == "" {
		return nil
	}
	l, err := parseLogLevel(env)
	if err != nil {
		return usagef(cmd, "$%s=%q: %v", logEnv, env, err)
	}
	*lvl = logLevel(l)
	return nil
}

// newLogger returns the diagnostics logger: text on w (stderr, never the
// protocol stream) for records at level and above, with every message and
// string value redacted with the default policy, since a path or an error
// may quote a secret.
func newLogger(w io.Writer, level logLevel) *slog.Logger {
	return slog.New(redactingHandler{slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.Level(level)})})
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
