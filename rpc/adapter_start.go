package rpc

import (
	"context"
	"fmt"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
	"ptywright/internal/host"
	"ptywright/internal/launch"
	"ptywright/manifest"
)

// startParams are adapter.start's; resumeParams adds prior_adapter.
type startParams struct {
	Plugin      string            `json:"plugin" rpc:"required"`
	Program     string            `json:"program"`
	Args        []string          `json:"args"`
	Cwd         string            `json:"cwd"`
	Env         map[string]string `json:"env"`
	Rows        int               `json:"rows"`
	Cols        int               `json:"cols"`
	PixelWidth  int               `json:"pixel_width"`
	PixelHeight int               `json:"pixel_height"`
	RecordPath  string            `json:"record_path"`
	RecordRaw   bool              `json:"record_raw"`
	// KeepDetached leaves the daemons the program starts running after
	// adapter.close, as session.create's keep_detached.
	KeepDetached bool `json:"keep_detached"`
	// Owner and IdleTimeoutMs are session.create's: the adapter and its
	// session are closed together.
	Owner         string `json:"owner"`
	IdleTimeoutMs *int64 `json:"idle_timeout_ms"`
	// Policy decides this adapter's permission dialogs instead of the
	// server's (Options.Policy): {rules: [...]}; {rules: []} decides none.
	Policy *policyParam `json:"policy"`
}

// policyParam is adapter.start's policy: ptywright.Policy's rules, as
// params (unknown members refused).
type policyParam struct {
	Rules []policyRuleParam `json:"rules" rpc:"required"`
}

// policyRuleParam is one ptywright.PolicyRule.
type policyRuleParam struct {
	ID        string `json:"id" rpc:"required"`
	Plugin    string `json:"plugin"`
	Tool      string `json:"tool"`
	Command   string `json:"command"`
	Path      string `json:"path"`
	URL       string `json:"url"`
	MCPServer string `json:"mcp_server"`
	MCPTool   string `json:"mcp_tool"`
	Decision  string `json:"decision" rpc:"required"`
}

// policy returns the checked ptywright.Policy of p (nil for none given).
func (p *policyParam) policy() (*ptywright.Policy, error) {
	if p == nil {
		return nil, nil
	}
	out := &ptywright.Policy{Rules: make([]ptywright.PolicyRule, 0, len(p.Rules))}
	for _, r := range p.Rules {
		out.Rules = append(out.Rules, ptywright.PolicyRule(r))
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("%w (param policy)", err)
	}
	return out, nil
}

type resumeParams struct {
	PriorAdapter  string            `json:"prior_adapter"`
	Plugin        string            `json:"plugin" rpc:"required"`
	Program       string            `json:"program"`
	Args          []string          `json:"args"`
	Cwd           string            `json:"cwd"`
	Env           map[string]string `json:"env"`
	Rows          int               `json:"rows"`
	Cols          int               `json:"cols"`
	PixelWidth    int               `json:"pixel_width"`
	PixelHeight   int               `json:"pixel_height"`
	RecordPath    string            `json:"record_path"`
	RecordRaw     bool              `json:"record_raw"`
	KeepDetached  bool              `json:"keep_detached"`
	Owner         string            `json:"owner"`
	IdleTimeoutMs *int64            `json:"idle_timeout_ms"`
	Policy        *policyParam      `json:"policy"`
}

func (p resumeParams) start() startParams {
	return startParams{
		Plugin: p.Plugin, Program: p.Program, Args: p.Args, Cwd: p.Cwd, Env: p.Env,
		Rows: p.Rows, Cols: p.Cols, PixelWidth: p.PixelWidth, PixelHeight: p.PixelHeight,
		RecordPath: p.RecordPath, RecordRaw: p.RecordRaw, KeepDetached: p.KeepDetached,
		Owner: p.Owner, IdleTimeoutMs: p.IdleTimeoutMs,
	}
}

type startResult struct {
	Adapter string                  `json:"adapter"`
	Plugin  string                  `json:"plugin"`
	Session string                  `json:"session"`
	State   ptywright.StateSnapshot `json:"state"`
}

func (s *Server) adapterStart(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p startParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	policy, err := p.Policy.policy()
	if err != nil {
		return nil, err
	}
	own, err := ownershipOf(c, p.Owner, p.IdleTimeoutMs)
	if err != nil {
		return nil, err
	}
	m, opts, err := s.prepareStart("adapter.start", p)
	if err != nil {
		return nil, err
	}
	return s.launch(ctx, m, opts, own, policy)
}

func (s *Server) adapterResume(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p resumeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	policy, err := p.Policy.policy()
	if err != nil {
		return nil, err
	}
	own, err := ownershipOf(c, p.Owner, p.IdleTimeoutMs)
	if err != nil {
		return nil, err
	}
	m, opts, err := s.prepareStart("adapter.resume", p.start())
	if err != nil {
		return nil, err
	}
	// Only once the new adapter can start (prepareStart checked what can be
	// checked before spawning): a bad resume leaves the prior one running.
	// A prior adapter that is gone already is not an error. Its slot of
	// the server's capacity goes to the new one (unless another start
	// takes it meanwhile); the memory caps are checked before it closes.
	if p.PriorAdapter != "" {
		if err := s.capacity.CheckMemory(); err != nil {
			return nil, err
		}
		if prior := s.adapters.take(p.PriorAdapter); prior != nil {
			holdNotifications(ctx, prior.e)
			if err := s.closeAdapter(prior); err != nil {
				s.log.Warn("closing the prior adapter", "adapter", prior.id, "err", redact(err.Error()))
			}
		}
	}
	return s.launch(ctx, m, opts, own, policy)
}

// prepareStart checks everything about a start that can be checked before
// spawning: the plugin and its kind, its session.spawn permission, the
// target, cwd, and the launch (see checkLaunch).
func (s *Server) prepareStart(method string, p startParams) (manifest.Manifest, ptywright.Options, error) {
	if p.Plugin == "" {
		return manifest.Manifest{}, ptywright.Options{}, invalidParams("plugin", "must not be empty")
	}
	m, err := s.opts.Plugins.Manifest(p.Plugin)
	if err != nil {
		return m, ptywright.Options{}, fmt.Errorf("%w: plugin: %w", ErrInvalidParams, err)
	}
	if err := host.CheckAdapterKind(m); err != nil {
		return m, ptywright.Options{}, hostError(err)
	}
	if err := checkPermissions(method, &m); err != nil {
		return m, ptywright.Options{}, err
	}
	opts, err := targetOptions(p, m)
	if err != nil {
		return m, ptywright.Options{}, err
	}
	// Before anything is closed (adapter.resume closes its prior after
	// this): Start would refuse the size too, too late.
	opts.MaxCells = s.opts.MaxCells
	if err := opts.Size.WithDefaults().ValidateCells(opts.MaxCells); err != nil {
		return m, ptywright.Options{}, err
	}
	if err := checkCwd(p.Cwd); err != nil {
		return m, ptywright.Options{}, err
	}
	if err := checkLaunch(opts); err != nil {
		return m, ptywright.Options{}, err
	}
	return m, opts, nil
}

// checkLaunch refuses, before anything is closed, a program that does not
// resolve, the way ptywright.Start will resolve it, to an executable in
// PATH or the cwd (the strings execve cannot take were checked with the
// target: host.CheckStrings). What only the exec itself finds out still
// fails after (see adapterResume): args and env longer than the OS takes
// (E2BIG), a script whose interpreter is missing, no PTY or process left,
// a program changed between the check and the exec.
func checkLaunch(opts ptywright.Options) error {
	if _, err := launch.Resolve(opts.Program, opts.Dir); err != nil {
		return startError(fmt.Errorf("ptywright: start %q: %w", opts.Program, err))
	}
	return nil
}

// targetOptions builds the session options of a start (see
// host.TargetOptions).
func targetOptions(p startParams, m manifest.Manifest) (ptywright.Options, error) {
	opts, err := host.TargetOptions(host.Target{
		Program: p.Program, Args: p.Args, Dir: p.Cwd, Env: p.Env,
		Size:       ptywright.Size{Rows: p.Rows, Cols: p.Cols, PixelWidth: p.PixelWidth, PixelHeight: p.PixelHeight},
		RecordPath: p.RecordPath, RecordRaw: p.RecordRaw, KeepDetached: p.KeepDetached,
	}, m)
	return opts, hostError(err)
}

// launch spawns the session, registers it under a new adapter id with its
// handle, and classifies the first screen.
func (s *Server) launch(ctx context.Context, m manifest.Manifest, opts ptywright.Options, own ownership, startPolicy *ptywright.Policy) (any, error) {
	ext, err := s.opts.Plugins.NewExtension(m.Name)
	if err != nil {
		return nil, fmt.Errorf("%w: plugin: %w", ErrInvalidParams, err)
	}
	leave, err := s.capacity.Enter()
	if err != nil {
		_ = ext.Close() // Best effort: never used; closing a Lua state cannot fail.
		return nil, err
	}
	sess, err := ptywright.Start(opts)
	if err != nil {
		_ = ext.Close() // Best effort: never used; closing a Lua state cannot fail.
		leave()
		return nil, startError(err)
	}
	id, num := s.adapters.nextID()
	// The instance is on the bus since NewExtension; scoping it before
	// the session is announced lets it hear session:created as its own.
	e, err := s.reg.add(ctx, sess, id, leave, own, func(e *entry) {
		if b, ok := ext.(events.Binder); ok {
			b.BindEvents(nil, events.Scope{Session: e.id, Adapter: id})
		}
	})
	if err != nil {
		_ = sess.Close() // Best effort: the server is closing.
		_ = ext.Close()  // Best effort: never used.
		leave()
		return nil, err
	}
	policy, policySource := s.opts.Policy, "server"
	if startPolicy != nil {
		policy, policySource = startPolicy, "adapter.start"
	}
	if policy == nil {
		policySource = "none"
	}
	h := ptywright.NewExtensionHandle(sess, ext, ptywright.HandleOptions{
		Policy:      policy,
		Predicates:  s.opts.Predicates,
		Lifecycle:   &contract.LifecycleOptions{},
		OnLifecycle: func(st contract.LifecycleStatus) { s.reg.publishLifecycle(e, st) },
		Events:      s.events,
		Scope:       events.Scope{Session: e.id, Adapter: id},
		Audit:       s.opts.Audit,
	})
	e.handle.Store(h)
	a := &adapter{id: id, num: num, plugin: m.Name, manifest: m, h: h, e: e, policy: policy, policySource: policySource}
	registered := func() bool {
		_, err := s.opts.Plugins.Manifest(m.Name)
		return err == nil
	}
	if err := s.adapters.add(a, registered); err != nil {
		_ = s.closeAdapter(a) // Best effort: already failing.
		return nil, err
	}
	s.log.Debug("adapter started", "adapter", id, "plugin", m.Name, "session", e.id, "pid", sess.Pid())
	st, err := h.State(ctx)
	if err != nil {
		return nil, err
	}
	return startResult{Adapter: id, Plugin: m.Name, Session: e.id, State: st}, nil
}

// closeAdapter closes an adapter taken out of the set: its session first
// (reaping the child and ending any wait, which holds the handle's lock),
// then the handle.
func (s *Server) closeAdapter(a *adapter) error {
	err := s.reg.removeEntry(a.e)
	_ = a.h.Close() // Best effort: its session's error is err; closing a Lua state cannot fail.
	return err
}
