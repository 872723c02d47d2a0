package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
	"ptywright/contract"
	"ptywright/events"
	"ptywright/internal/host"
	"ptywright/luahost"
	"ptywright/manifest"
	"ptywright/plugins"
)

type adapterStartIn struct {
	Plugin  string            `json:"plugin" jsonschema:"the plugin's name, as plugin_describe lists it (claude-code, codex, ...)"`
	Program string            `json:"program,omitempty" jsonschema:"the program to run; default: the plugin's own target (its CLI)"`
	Args    []string          `json:"args,omitempty" jsonschema:"its arguments; default: the plugin's"`
	Cwd     string            `json:"cwd,omitempty" jsonschema:"the working directory; default: the server's"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"variables added to the environment"`
	Rows    int               `json:"rows,omitempty" jsonschema:"terminal height in rows"`
	Cols    int               `json:"cols,omitempty" jsonschema:"terminal width in columns"`
}

type adapterStartOut struct {
	Adapter string                  `json:"adapter" jsonschema:"the adapter id the other adapter_* tools take"`
	Plugin  string                  `json:"plugin"`
	Session string                  `json:"session" jsonschema:"its session, readable with session_snapshot and session_wait"`
	Pid     int                     `json:"pid"`
	State   ptywright.StateSnapshot `json:"state" jsonschema:"what the plugin reads on the first screen"`
}

type adapterIn struct {
	Adapter string `json:"adapter" jsonschema:"the adapter id"`
}

type adapterStateOut struct {
	State ptywright.StateSnapshot `json:"state"`
	// Explanation is set when the call timed out: see explanationNote.
	Explanation *contract.Explanation `json:"explanation,omitempty" jsonschema:"on a timeout: why the plugin read the screen as it last did (rule, evidence, what it rejected)"`
}

type adapterSendOut struct {
	State ptywright.StateSnapshot `json:"state" jsonschema:"the state after the intent"`
	// Receipt is a ptywright.Receipt; typed any because its evidence is a
	// match outcome, a tree a JSON schema inferred from Go cannot say.
	Receipt any `json:"receipt" jsonschema:"what became of the intent: effect confirmed (the program took it), ignored (it dropped the keys: try again) or unverified; bytes written, attempts, reason"`
	// Explanation is set when the call timed out: see explanationNote.
	Explanation *contract.Explanation `json:"explanation,omitempty" jsonschema:"on a timeout: why the plugin read the screen as it last did (rule, evidence, what it rejected)"`
}

type adapterSendIn struct {
	Adapter string         `json:"adapter" jsonschema:"the adapter id"`
	Intent  string         `json:"intent" jsonschema:"the intent, as plugin_describe lists it (send_prompt, approve, interrupt, ...)"`
	Params  map[string]any `json:"params,omitempty" jsonschema:"the intent's parameters, as this tool's description and plugin_describe list them (send_prompt takes {\"prompt\": ...})"`
}

type adapterTurnIn struct {
	Adapter    string         `json:"adapter" jsonschema:"the adapter id"`
	Intent     string         `json:"intent" jsonschema:"the intent to send, usually send_prompt"`
	Params     map[string]any `json:"params,omitempty" jsonschema:"the intent's parameters"`
	WaitIntent string         `json:"wait_intent,omitempty" jsonschema:"the wait matcher to wait with; default wait_turn_matcher (the turn is complete)"`
	WaitParams map[string]any `json:"wait_params,omitempty" jsonschema:"its parameters"`
	TimeoutMs  int64          `json:"timeout_ms,omitempty" jsonschema:"give up after this many ms; default 120000"`
}

type adapterTurnOut struct {
	State ptywright.StateSnapshot `json:"state"`
	// Matched is a *ptywright.MatchOutcome; typed any because the
	// outcome is a tree, which a JSON schema inferred from Go cannot say.
	Matched any    `json:"matched,omitempty" jsonschema:"which branch of the wait matcher fired"`
	Screen  string `json:"screen" jsonschema:"the screen as text when the turn ended"`
	// Receipt is a ptywright.Receipt, typed any like Matched.
	Receipt any `json:"receipt" jsonschema:"what became of the intent (see adapter_send); when it was ignored the turn did not wait"`
	// TimedOut and Explanation are set when the wait gave up: see
	// explanationNote.
	TimedOut    bool                  `json:"timed_out,omitempty" jsonschema:"the wait timed out before its matcher fired; screen is the last screen"`
	Explanation *contract.Explanation `json:"explanation,omitempty" jsonschema:"on a timeout: why the plugin read the screen as it last did (rule, evidence, what it rejected)"`
}

type adapterCloseOut struct {
	Closed bool `json:"closed"`
}

type pluginDescribeIn struct {
	Plugin string `json:"plugin,omitempty" jsonschema:"describe only this plugin; default: every plugin"`
}

type pluginInfo struct {
	Plugin        string                  `json:"plugin"`
	Kind          string                  `json:"kind"`
	Version       string                  `json:"version"`
	Permissions   []string                `json:"permissions"`
	DefaultTarget string                  `json:"default_target,omitempty" jsonschema:"the program adapter_start runs without one"`
	Intents       []luahost.DescribeEntry `json:"intents" jsonschema:"adapter_send intents"`
	WaitMatchers  []luahost.DescribeEntry `json:"wait_matchers" jsonschema:"adapter_turn wait intents"`
	States        []luahost.DescribeEntry `json:"states" jsonschema:"the states adapter_state reports"`
	Error         string                  `json:"error,omitempty" jsonschema:"why the plugin could not describe itself"`
}

type pluginDescribeOut struct {
	Plugins []pluginInfo `json:"plugins"`
}

func (c *client) addAdapterTools(srv *mcp.Server) {
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "plugin_describe",
		Title: "List plugins and their intents",
		Description: "List the plugins that can drive agent CLIs and other programs (adapters), with the intents each accepts (for adapter_send and adapter_turn), its wait matchers and the states it reports. " +
			"Call it before adapter_start to learn the intent names and their parameters.",
	}), c.pluginDescribe)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "adapter_start",
		Title: "Start a program under a plugin",
		Description: "Start a program (by default the plugin's own CLI, such as claude for claude-code) on a new pseudo-terminal, driven by a plugin that reads its screen as states and accepts intents. " +
			"Returns the adapter id, its session id (readable with session_snapshot and session_wait) and the first state.",
	}), c.adapterStart)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:        "adapter_state",
		Title:       "Read an adapter's state",
		Description: "Classify the adapter's screen now: its state (ready, busy, awaiting approval, ...), confidence, the evidence the plugin saw and any metadata (options of a menu, status).",
	}), c.adapterState)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "adapter_send",
		Title: "Send an intent to an adapter",
		Description: "Apply one intent (send_prompt, approve, interrupt, ...; see plugin_describe) to the adapter's program and return the state after it. " +
			"It does not wait for the program to finish: use adapter_turn to send and wait in one call." + c.intentSummary(),
	}), c.adapterSend)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "adapter_turn",
		Title: "Send an intent and wait for the turn",
		Description: "Send an intent and wait for its wait matcher (by default: the turn is complete), with nothing slipping in between. " +
			"Returns the final state, which matcher branch fired and the screen as text. Use it for prompt-and-answer exchanges.",
	}), c.adapterTurn)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:        "adapter_close",
		Title:       "Close an adapter",
		Description: "End an adapter and its program: the program and every process it started are terminated and reaped. Use it when you are done with an adapter.",
	}), c.adapterClose)
}

func (c *client) plugins() *plugins.Registry { return c.srv.opts.Plugins }

func (c *client) pluginDescribe(ctx context.Context, _ *mcp.CallToolRequest, in pluginDescribeIn) (*mcp.CallToolResult, pluginDescribeOut, error) {
	var ms []manifest.Manifest
	if in.Plugin != "" {
		m, err := c.plugins().Manifest(in.Plugin)
		if err != nil {
			return nil, pluginDescribeOut{}, fmt.Errorf("plugin: %w (see plugin_describe without a plugin for the list)", err)
		}
		ms = []manifest.Manifest{m}
	} else {
		ms = c.plugins().Manifests()
	}
	out := pluginDescribeOut{Plugins: make([]pluginInfo, 0, len(ms))}
	for _, m := range ms {
		info := pluginInfo{Plugin: m.Name, Kind: string(m.Kind), Version: m.Version, Permissions: make([]string, len(m.Permissions))}
		for i, p := range m.Permissions {
			info.Permissions[i] = string(p)
		}
		if m.DefaultTarget != nil {
			info.DefaultTarget = strings.Join(append([]string{m.DefaultTarget.Program}, m.DefaultTarget.Args...), " ")
		}
		d, err := c.plugins().Describe(ctx, m.Name)
		if err != nil {
			info.Error = toolError(err).Error()
		} else {
			info.Intents, info.WaitMatchers, info.States = d.Intents, d.WaitMatchers, d.States
		}
		out.Plugins = append(out.Plugins, info)
	}
	return textResult(describeText(out)), out, nil
}

func describeText(out pluginDescribeOut) string {
	var b strings.Builder
	for _, p := range out.Plugins {
		fmt.Fprintf(&b, "%s %s (%s", p.Plugin, p.Version, p.Kind)
		if p.DefaultTarget != "" {
			fmt.Fprintf(&b, ", runs %s by default", p.DefaultTarget)
		}
		b.WriteString(")\n")
		if p.Error != "" {
			fmt.Fprintf(&b, "  cannot describe itself: %s\n", p.Error)
		}
		for _, group := range []struct {
			name    string
			entries []luahost.DescribeEntry
		}{{"intents", p.Intents}, {"wait matchers", p.WaitMatchers}} {
			if len(group.entries) == 0 {
				continue
			}
			fmt.Fprintf(&b, "  %s:\n", group.name)
			for _, e := range group.entries {
				line, _ := json.Marshal(map[string]any(e))
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
	}
	if len(out.Plugins) == 0 {
		b.WriteString("No plugins.\n")
	}
	return b.String()
}

// checked returns the client's adapter id after checking that its
// manifest grants method (by its JSON-RPC name).
func (c *client) checked(method, id string) (*adapterEntry, error) {
	a, err := c.adapter(id)
	if err != nil {
		return nil, err
	}
	if err := host.CheckPermissions(method, &a.manifest); err != nil {
		return nil, fmt.Errorf("adapter %s (plugin %s): %w", a.id, a.plugin, err)
	}
	return a, nil
}

func (c *client) adapterStart(ctx context.Context, _ *mcp.CallToolRequest, in adapterStartIn) (*mcp.CallToolResult, adapterStartOut, error) {
	if in.Plugin == "" {
		return nil, adapterStartOut{}, errors.New("plugin: must not be empty (see plugin_describe)")
	}
	m, err := c.plugins().Manifest(in.Plugin)
	if err != nil {
		return nil, adapterStartOut{}, fmt.Errorf("plugin: %w (see plugin_describe)", err)
	}
	if err := host.CheckAdapterKind(m); err != nil {
		return nil, adapterStartOut{}, err
	}
	if err := host.CheckPermissions("adapter.start", &m); err != nil {
		return nil, adapterStartOut{}, err
	}
	opts, err := host.TargetOptions(host.Target{
		Program: in.Program, Args: in.Args, Dir: in.Cwd, Env: in.Env,
		Size: ptywright.Size{Rows: in.Rows, Cols: in.Cols},
	}, m)
	if err != nil {
		return nil, adapterStartOut{}, err
	}
	opts.MaxCells = c.srv.opts.MaxCells
	if err := host.CheckDir(in.Cwd); err != nil {
		return nil, adapterStartOut{}, toolError(err)
	}
	ext, err := c.plugins().NewExtension(m.Name)
	if err != nil {
		return nil, adapterStartOut{}, toolError(fmt.Errorf("plugin %s: %w", m.Name, err))
	}
	leave, err := c.srv.capacity.Enter()
	if err != nil {
		_ = ext.Close() // Best effort: never used; closing a Lua state cannot fail.
		return nil, adapterStartOut{}, toolError(err)
	}
	sess, err := ptywright.Start(opts)
	if err != nil {
		_ = ext.Close() // Best effort: never used; closing a Lua state cannot fail.
		leave()
		return nil, adapterStartOut{}, toolError(fmt.Errorf("starting %s: %w", opts.Program, host.StartError(err)))
	}
	e, err := c.addSession(sess, leave)
	if err != nil {
		_ = ext.Close() // Best effort: never used.
		return nil, adapterStartOut{}, err
	}
	h := ptywright.NewExtensionHandle(sess, ext, ptywright.HandleOptions{
		Predicates: c.srv.opts.Predicates,
		Lifecycle:  &contract.LifecycleOptions{},
		Scope:      events.Scope{Session: e.id},
		Audit:      c.srv.opts.Audit,
		Policy:     c.srv.opts.Policy,
	})
	a, err := c.addAdapter(m.Name, m, h, e)
	if err != nil {
		return nil, adapterStartOut{}, err
	}
	c.srv.log.Debug("adapter started", "adapter", a.id, "plugin", m.Name, "session", e.id, "pid", sess.Pid())
	st, err := h.State(ctx)
	if err != nil {
		return nil, adapterStartOut{}, toolError(fmt.Errorf("adapter %s started but its first state failed: %w", a.id, err))
	}
	out := adapterStartOut{Adapter: a.id, Plugin: m.Name, Session: e.id, Pid: sess.Pid(), State: st}
	return textResult(fmt.Sprintf("Started adapter %s (plugin %s, %s, session %s).\n%s", a.id, m.Name, opts.Program, e.id, stateText(out.State))), out, nil
}

func (c *client) adapterState(ctx context.Context, _ *mcp.CallToolRequest, in adapterIn) (*mcp.CallToolResult, adapterStateOut, error) {
	a, err := c.checked("adapter.state", in.Adapter)
	if err != nil {
		return nil, adapterStateOut{}, err
	}
	st, err := a.h.State(ctx)
	if x := timeoutExplanation(err, a.h); x != nil {
		msg := toolError(fmt.Errorf("adapter %s: %w", a.id, err)).Error()
		return errorResult(msg + "\n" + explanationNote(x)), adapterStateOut{Explanation: x}, nil
	}
	if err != nil {
		return nil, adapterStateOut{}, toolError(err)
	}
	out := adapterStateOut{State: st}
	return textResult(fmt.Sprintf("Adapter %s:\n%s", a.id, stateText(out.State))), out, nil
}

// rawParams encodes an intent's params for the plugin; none is null.
func rawParams(p map[string]any) (json.RawMessage, error) {
	if p == nil {
		return nil, nil
	}
	return json.Marshal(p)
}

func (c *client) adapterSend(ctx context.Context, _ *mcp.CallToolRequest, in adapterSendIn) (*mcp.CallToolResult, adapterSendOut, error) {
	if in.Intent == "" {
		return nil, adapterSendOut{}, errors.New("intent: must not be empty (see plugin_describe)")
	}
	params, err := rawParams(in.Params)
	if err != nil {
		return nil, adapterSendOut{}, fmt.Errorf("params: %w", err)
	}
	a, err := c.checked("adapter.send", in.Adapter)
	if err != nil {
		return nil, adapterSendOut{}, err
	}
	res, err := a.h.Send(ptywright.WithDecider(ctx, "mcp client"), in.Intent, params)
	if x := timeoutExplanation(err, a.h); x != nil {
		out := adapterSendOut{Explanation: x}
		if res.Receipt.Intent != "" {
			out.Receipt = receiptOut(res.Receipt)
		}
		return errorResult(toolError(fmt.Errorf("intent %s: %w", in.Intent, err)).Error() + "\n" + explanationNote(x)), out, nil
	}
	if err != nil {
		return nil, adapterSendOut{}, toolError(fmt.Errorf("intent %s: %w", in.Intent, err))
	}
	rc := receiptOut(res.Receipt)
	out := adapterSendOut{State: res.State, Receipt: rc}
	return textResult(fmt.Sprintf("Sent %s to adapter %s: %s.\n%s", in.Intent, a.id, receiptText(rc), stateText(out.State))), out, nil
}

// receiptOut is a receipt as the model gets it: its evidence without
// patterns (the handle has redacted it).
func receiptOut(rc ptywright.Receipt) ptywright.Receipt {
	if rc.Evidence != nil {
		rc.Evidence = withoutPatterns(rc.Evidence)
	}
	return rc
}

func receiptText(rc ptywright.Receipt) string {
	s := fmt.Sprintf("%s (%d bytes, %d attempt(s))", rc.Effect, rc.Bytes, rc.Attempts)
	if rc.Effect == ptywright.EffectIgnored {
		s = "IGNORED by the program (" + fmt.Sprintf("%d bytes, %d attempt(s)", rc.Bytes, rc.Attempts) + ")"
	}
	if rc.Effect == ptywright.EffectNotSent {
		s = "NOT SENT (nothing was written)"
	}
	if rc.Reason != "" {
		s += ": " + rc.Reason
	}
	return s
}

func (c *client) adapterTurn(ctx context.Context, req *mcp.CallToolRequest, in adapterTurnIn) (*mcp.CallToolResult, adapterTurnOut, error) {
	if in.Intent == "" {
		return nil, adapterTurnOut{}, errors.New("intent: must not be empty (see plugin_describe)")
	}
	params, err := rawParams(in.Params)
	if err != nil {
		return nil, adapterTurnOut{}, fmt.Errorf("params: %w", err)
	}
	waitParams, err := rawParams(in.WaitParams)
	if err != nil {
		return nil, adapterTurnOut{}, fmt.Errorf("wait_params: %w", err)
	}
	timeout, err := timeoutOf(in.TimeoutMs, ptywright.DefaultAdapterWaitTimeout)
	if err != nil {
		return nil, adapterTurnOut{}, err
	}
	a, err := c.checked("adapter.turn", in.Adapter)
	if err != nil {
		return nil, adapterTurnOut{}, err
	}
	stop := c.progress(ctx, req, "turn "+in.Intent)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr, err := a.h.Turn(ptywright.WithDecider(ctx, "mcp client"), in.Intent, params, in.WaitIntent, waitParams)
	if err != nil {
		// The screen says what went wrong better than the error alone, and
		// the explanation why the plugin read it as it did.
		var we *ptywright.WaitError
		if errors.As(err, &we) {
			msg := toolError(fmt.Errorf("turn %s on adapter %s: %w", in.Intent, a.id, err)).Error()
			// The screen follows in full: keep the first line of the
			// error, not the screen tail WaitError.Error appends.
			msg, _, _ = strings.Cut(msg, "\n")
			out := adapterTurnOut{Screen: we.Snapshot.PlainText, TimedOut: errors.Is(err, ptywright.ErrTimeout), Explanation: we.Explanation}
			if tr.Receipt.Intent != "" {
				out.Receipt = receiptOut(tr.Receipt)
			}
			if we.Explanation != nil {
				msg += "\n" + explanationNote(we.Explanation)
			}
			return errorResult(msg + "\n" + screenBlock(out.Screen)), out, nil
		}
		return nil, adapterTurnOut{}, toolError(fmt.Errorf("turn %s on adapter %s: %w", in.Intent, a.id, err))
	}
	rc := receiptOut(tr.Receipt)
	out := adapterTurnOut{State: tr.State, Receipt: rc}
	head := fmt.Sprintf("Turn %s on adapter %s done (%s).", in.Intent, a.id, receiptText(rc))
	if tr.Wait != nil {
		if tr.Wait.Outcome != nil {
			out.Matched = withoutPatterns(tr.Wait.Outcome)
		}
		out.Screen = tr.Wait.Snapshot.PlainText
	} else {
		// The send was ignored: no wait ran.
		head = fmt.Sprintf("Turn %s on adapter %s did not wait: %s.", in.Intent, a.id, receiptText(rc))
		out.Screen = a.h.Session().Snapshot(ptywright.SnapshotOptions{}).PlainText
	}
	return textResult(fmt.Sprintf("%s\n%s\n%s", head, stateText(out.State), screenBlock(out.Screen))), out, nil
}

func (c *client) adapterClose(_ context.Context, _ *mcp.CallToolRequest, in adapterIn) (*mcp.CallToolResult, adapterCloseOut, error) {
	if _, err := c.checked("adapter.close", in.Adapter); err != nil {
		return nil, adapterCloseOut{}, err
	}
	a, err := c.takeAdapter(in.Adapter)
	if err != nil {
		return nil, adapterCloseOut{}, err
	}
	// The session first: it reaps the child and ends any wait holding the
	// handle's lock.
	err = a.session.close()
	_ = a.h.Close() // Best effort: its session's error is err; closing a Lua state cannot fail.
	if err != nil {
		return nil, adapterCloseOut{}, toolError(fmt.Errorf("closing %s: %w", a.id, err))
	}
	return textResult(fmt.Sprintf("Closed adapter %s and its session %s.", a.id, a.session.id)), adapterCloseOut{Closed: true}, nil
}

// timeoutExplanation is, for a call that timed out, the explanation of the
// adapter's last classification (a wait's own, when it carries one),
// redacted; nil for any other outcome or when nothing was classified.
func timeoutExplanation(err error, h *ptywright.ExtensionHandle) *contract.Explanation {
	if !errors.Is(err, ptywright.ErrTimeout) {
		return nil
	}
	var we *ptywright.WaitError
	if errors.As(err, &we) && we.Explanation != nil {
		return we.Explanation
	}
	x, xerr := h.Explain(context.Background(), ptywright.ExplainLast())
	if xerr != nil {
		return nil
	}
	return &x
}

// explanationNote is the short line a timeout's text carries: what the
// plugin last read the screen as, and by which rule.
func explanationNote(x *contract.Explanation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Why: the plugin last read the screen (sequence %d) as %s", x.Sequence, x.State)
	if x.Rule != "" {
		fmt.Fprintf(&b, " by rule %s", x.Rule)
	}
	if x.Evidence != "" {
		fmt.Fprintf(&b, ": %q", x.Evidence)
	}
	if n := len(x.Considered); n > 0 {
		fmt.Fprintf(&b, " (%d other rule(s) rejected; see explanation)", n)
	}
	b.WriteString(".")
	return b.String()
}

func stateText(st ptywright.StateSnapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "State: %s (confidence %.2f)", st.State, st.Confidence)
	if st.Evidence != "" {
		fmt.Fprintf(&b, "; evidence: %q", st.Evidence)
	}
	if len(st.Metadata) > 0 {
		md, _ := json.Marshal(st.Metadata)
		fmt.Fprintf(&b, "; metadata: %s", md)
	}
	return b.String()
}

// withoutPatterns clears the patterns of an outcome (a copy), in every
// branch: the plugin wrote them, not the model, and a secret it escaped
// into one (sk\-...) slips past redaction.
func withoutPatterns(o *ptywright.MatchOutcome) *ptywright.MatchOutcome {
	o.Pattern = ""
	for i := range o.Matched {
		withoutPatterns(&o.Matched[i])
	}
	return o
}
