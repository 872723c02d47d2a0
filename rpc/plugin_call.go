package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"ptywright"
	"ptywright/internal/wire"
	"ptywright/luahost"
)

type callParams struct {
	// Plugin names a registered plugin; Source is an inline one-shot
	// script instead (only with AllowPluginLoad). Exactly one is set.
	Plugin string          `json:"plugin"`
	Source string          `json:"source"`
	Hook   string          `json:"hook" rpc:"required"`
	Args   json.RawMessage `json:"args"`
	// TimeoutMs defaults to 10 s and is capped (see Options.MaxHookTimeout).
	TimeoutMs *int64 `json:"timeout_ms"`
}

// hookTimeoutData is the data of a hook call that timed out: the timeout
// in force after the cap.
type hookTimeoutData struct {
	Plugin    string `json:"plugin"`
	Hook      string `json:"hook"`
	TimeoutMs int64  `json:"timeout_ms"`
}

// pluginCall is plugin.call: it calls an exported function of a loaded
// plugin (on the registry's hook instance of it) or of an inline script
// with JSON arguments, and answers {ok: value} or {err: message}, plus
// output when the hook printed. A Lua error in the hook is an internal
// error (the plugin failed), unless it raised ptywright.invalid_params
// (-32602); an inline script that does not load (a syntax error) is
// invalid params; a timeout is -32001 with data {plugin, hook,
// timeout_ms}.
func (s *Server) pluginCall(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p callParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Plugin == "" && p.Source == "":
		return nil, invalidParams("plugin", "one of plugin and source is required")
	case p.Plugin != "" && p.Source != "":
		return nil, invalidParams("source", "plugin and source are exclusive")
	case p.Hook == "":
		return nil, invalidParams("hook", "must not be empty")
	}
	if kind := wire.Kind(p.Args); len(p.Args) > 0 && kind != "an array" && kind != "null" {
		return nil, invalidParams("args", "must be an array of positional arguments, got %s", kind)
	}
	timeout, err := s.hookTimeout(p.TimeoutMs)
	if err != nil {
		return nil, err
	}
	opts := luahost.HookOptions{Timeout: timeout}
	var res luahost.HookResult
	name := p.Plugin
	if p.Source != "" {
		if !s.opts.AllowPluginLoad {
			return nil, pluginLoadDenied("plugin.call")
		}
		name = luahost.InlinePluginName
		res, err = s.opts.Plugins.CallInline(ctx, p.Source, p.Hook, p.Args, opts)
		if loadFailed(err) {
			return nil, fmt.Errorf("%w: source: %w", ErrInvalidParams, err)
		}
	} else {
		res, err = s.opts.Plugins.Call(ctx, p.Plugin, p.Hook, p.Args, opts)
	}
	if err != nil {
		if errors.Is(err, ptywright.ErrTimeout) {
			return nil, withData(err, hookTimeoutData{Plugin: name, Hook: p.Hook, TimeoutMs: timeout.Milliseconds()})
		}
		return nil, err
	}
	return res, nil
}

// loadFailed reports whether err is an inline script's failure to load: a
// Lua syntax error, an error raised by the chunk, or a chunk that returns
// neither a table nor nothing. The script is a param, so that is the
// caller's mistake (-32602); a budget trip, timeout or cancellation while
// loading keeps its own class, and a failure of the hook itself is the
// plugin's (-32603).
func loadFailed(err error) bool {
	var pe *luahost.Error
	return errors.As(err, &pe) && pe.Function == "(load)" && errors.Is(err, luahost.ErrRuntime) &&
		!errors.Is(err, luahost.ErrBudget) && !errors.Is(err, ptywright.ErrTimeout) && !errors.Is(err, ptywright.ErrCancelled)
}

// hookTimeout is timeout_ms as a duration: luahost.DefaultHookTimeout
// when absent, capped at the server's maximum.
func (s *Server) hookTimeout(ms *int64) (time.Duration, error) {
	limit := luahost.MaxHookTimeout
	if s.opts.MaxHookTimeout > 0 {
		limit = min(limit, s.opts.MaxHookTimeout)
	}
	if ms == nil {
		return min(luahost.DefaultHookTimeout, limit), nil
	}
	if *ms <= 0 {
		return 0, invalidParams("timeout_ms", "must be positive, got %d", *ms)
	}
	if *ms >= limit.Milliseconds() {
		return limit, nil
	}
	return time.Duration(*ms) * time.Millisecond, nil
}
