package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"ptywright"
	"ptywright/contract"
	"ptywright/internal/host"
	"ptywright/internal/wire"
	"ptywright/manifest"
)

// checkPermissions fails with -32004 {method, required_permission} for the
// first permission of method that m does not declare.
func checkPermissions(method string, m *manifest.Manifest) error {
	var pe *host.PermissionError
	if err := host.CheckPermissions(method, m); errors.As(err, &pe) {
		return PermissionDenied(pe.Method, string(pe.Permission))
	} else if err != nil {
		return err
	}
	return nil
}

// adapterFor returns the live adapter id after checking that its manifest
// grants method.
func (s *Server) adapterFor(method, id string) (*adapter, error) {
	a, err := s.adapters.get(id)
	if err != nil {
		return nil, err
	}
	if err := checkPermissions(method, &a.manifest); err != nil {
		return nil, err
	}
	a.e.touch()
	return a, nil
}

type adapterListResult struct {
	Plugins []manifest.Manifest `json:"plugins"`
}

// adapterList lists what adapter.start can instantiate: the plugins of
// kind adapter. Matcher and macro plugins are still loaded, described
// (plugin.describe) and called (plugin.call, lua matchers).
func (s *Server) adapterList(_ context.Context, _ *conn, raw []byte) (any, error) {
	if err := decodeParams(raw, &struct{}{}); err != nil {
		return nil, err
	}
	all := s.opts.Plugins.Manifests()
	out := make([]manifest.Manifest, 0, len(all))
	for _, m := range all {
		if m.Kind == manifest.KindAdapter {
			out = append(out, m)
		}
	}
	return adapterListResult{Plugins: out}, nil
}

type liveAdapter struct {
	Adapter  string `json:"adapter"`
	Plugin   string `json:"plugin"`
	Session  string `json:"session"`
	Sequence uint64 `json:"sequence"`
	// Finished says the program has exited; the adapter stays live (and
	// readable) until adapter.close.
	Finished bool `json:"finished"`
}

type adapterLiveResult struct {
	Adapters []liveAdapter `json:"adapters"`
}

func (s *Server) adapterLive(_ context.Context, _ *conn, raw []byte) (any, error) {
	if err := decodeParams(raw, &struct{}{}); err != nil {
		return nil, err
	}
	live := s.adapters.list()
	out := make([]liveAdapter, len(live))
	for i, a := range live {
		sess := a.h.Session()
		out[i] = liveAdapter{Adapter: a.id, Plugin: a.plugin, Session: a.e.id, Sequence: sess.Sequence(), Finished: isDone(sess.Exited())}
	}
	return adapterLiveResult{Adapters: out}, nil
}

type adapterParams struct {
	Adapter string `json:"adapter" rpc:"required"`
}

type stateResult struct {
	State ptywright.StateSnapshot `json:"state"`
}

func (s *Server) adapterState(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.state", p.Adapter)
	if err != nil {
		return nil, err
	}
	st, err := a.h.State(ctx)
	if err != nil {
		return nil, err
	}
	return stateResult{State: st}, nil
}

type sendParams struct {
	Adapter string          `json:"adapter" rpc:"required"`
	Intent  string          `json:"intent" rpc:"required"`
	Params  json.RawMessage `json:"params"`
	// TimeoutMs bounds the send, the plugin's hooks and the writes
	// included (default DefaultInputTimeout).
	TimeoutMs *int64 `json:"timeout_ms"`
}

func (s *Server) adapterSend(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p sendParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := checkIntent("intent", p.Intent, "params", p.Params); err != nil {
		return nil, err
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, DefaultInputTimeout)
	if err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.send", p.Adapter)
	if err != nil {
		return nil, err
	}
	if err := personHasTerminal(a.e, c, "adapter.send"); err != nil {
		return nil, err
	}
	defer a.e.busyFor()()
	holdNotifications(ctx, a.e)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := a.h.Send(decidedBy(ctx, c), p.Intent, p.Params)
	if err != nil {
		// What was delivered before the failure is said, as for a turn.
		return nil, withReceipt(err, res.Receipt)
	}
	return sendResult{State: res.State, Receipt: res.Receipt}, nil
}

// sendResult is adapter.send's result: the reference's state plus the
// receipt (additive).
type sendResult struct {
	State   ptywright.StateSnapshot `json:"state"`
	Receipt ptywright.Receipt       `json:"receipt"`
}

// checkIntent validates an intent name (required unless field is "") and
// its params, which the plugin indexes into, so they must be an object.
func checkIntent(field, intent, paramsField string, params json.RawMessage) error {
	if field != "" && intent == "" {
		return invalidParams(field, "must not be empty")
	}
	if kind := wire.Kind(params); len(params) > 0 && kind != "an object" && kind != "null" {
		return invalidParams(paramsField, "must be an object, got %s", kind)
	}
	return nil
}

type adapterWaitParams struct {
	Adapter   string          `json:"adapter" rpc:"required"`
	Intent    string          `json:"intent"`
	Params    json.RawMessage `json:"params"`
	TimeoutMs *int64          `json:"timeout_ms"`
	WaitID    string          `json:"wait_id"`
	// AfterSequence makes the wait see only screens after it (a receipt's
	// or session.input's sequence).
	AfterSequence *uint64 `json:"after_sequence"`
}

// adapterWaitResult is adapter.wait's and adapter.turn's result.
type adapterWaitResult struct {
	State ptywright.StateSnapshot `json:"state"`
	// Matched says which matcher branch fired; null when a turn's send was
	// ignored or not sent and the turn did not wait.
	Matched *ptywright.MatchOutcome `json:"matched"`
	WaitID  string                  `json:"wait_id,omitempty"`
	// Receipt is adapter.turn's send receipt (additive).
	Receipt *ptywright.Receipt `json:"receipt,omitempty"`
}

func (s *Server) adapterWait(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterWaitParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := checkIntent("", p.Intent, "params", p.Params); err != nil {
		return nil, err
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, ptywright.DefaultAdapterWaitTimeout)
	if err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.wait", p.Adapter)
	if err != nil {
		return nil, err
	}
	defer a.e.busyFor()()
	var opts []ptywright.WaitOption
	if p.AfterSequence != nil {
		opts = append(opts, ptywright.After(*p.AfterSequence))
	}
	return s.boundWait(ctx, a, p.WaitID, timeout, func(ctx context.Context) (ptywright.TurnResult, error) {
		st, res, err := a.h.Wait(ctx, p.Intent, p.Params, opts...)
		return ptywright.TurnResult{State: st, Wait: res}, err
	})
}

type turnParams struct {
	Adapter string    `json:"adapter" rpc:"required"`
	Send    turnSend  `json:"send" rpc:"required"`
	Wait    *turnWait `json:"wait"`
}

type turnSend struct {
	Intent string          `json:"intent" rpc:"required"`
	Params json.RawMessage `json:"params"`
}

type turnWait struct {
	Intent    string          `json:"intent"`
	Params    json.RawMessage `json:"params"`
	TimeoutMs *int64          `json:"timeout_ms"`
	WaitID    string          `json:"wait_id"`
}

func (s *Server) adapterTurn(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p turnParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := checkIntent("send.intent", p.Send.Intent, "send.params", p.Send.Params); err != nil {
		return nil, err
	}
	w := turnWait{}
	if p.Wait != nil {
		w = *p.Wait
	}
	if err := checkIntent("", w.Intent, "wait.params", w.Params); err != nil {
		return nil, err
	}
	timeout, err := waitTimeout("wait.timeout_ms", w.TimeoutMs, ptywright.DefaultAdapterWaitTimeout)
	if err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.turn", p.Adapter)
	if err != nil {
		return nil, err
	}
	if err := personHasTerminal(a.e, c, "adapter.turn"); err != nil {
		return nil, err
	}
	defer a.e.busyFor()()
	return s.boundWait(ctx, a, w.WaitID, timeout, func(ctx context.Context) (ptywright.TurnResult, error) {
		return a.h.Turn(decidedBy(ctx, c), p.Send.Intent, p.Send.Params, w.Intent, w.Params)
	})
}

// boundWait runs a wait (or a turn) under timeout. With a wait_id the
// cancel is bound to it before run takes the adapter's lock, so
// adapter.cancel_wait interrupts it from any connection.
func (s *Server) boundWait(ctx context.Context, a *adapter, waitID string, timeout time.Duration, run func(context.Context) (ptywright.TurnResult, error)) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var w *boundWait
	if waitID != "" {
		var err error
		if w, err = s.adapters.bindWait(waitID, a.id, cancel); err != nil {
			return nil, err
		}
	}
	tr, err := run(ctx)
	if w != nil && s.adapters.finishWait(w) {
		return nil, withReceipt(cancelledWait(waitID, err), tr.Receipt)
	}
	if err != nil {
		return nil, withReceipt(err, tr.Receipt)
	}
	out := adapterWaitResult{State: tr.State, WaitID: waitID}
	if tr.Wait != nil {
		out.Matched = tr.Wait.Outcome
	}
	if tr.Receipt.Intent != "" {
		out.Receipt = &tr.Receipt
	}
	return out, nil
}

// waitTimeout reads an optional timeout_ms.
func waitTimeout(field string, ms *int64, def time.Duration) (time.Duration, error) {
	if ms == nil {
		return def, nil
	}
	if *ms < 0 || *ms > MaxWaitTimeout.Milliseconds() {
		return 0, invalidParams(field, "must be between 0 and %d, got %d", MaxWaitTimeout.Milliseconds(), *ms)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

type cancelWaitParams struct {
	WaitID string `json:"wait_id" rpc:"required"`
}

type cancelWaitResult struct {
	Cancelled bool   `json:"cancelled"`
	Adapter   string `json:"adapter,omitempty"`
	WaitID    string `json:"wait_id,omitempty"`
}

// adapterCancelWait cancels the wait bound to wait_id. It is idempotent: an
// unknown, finished or already cancelled id answers cancelled: false.
func (s *Server) adapterCancelWait(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p cancelWaitParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.WaitID == "" {
		return nil, invalidParams("wait_id", "must not be empty")
	}
	adapterID, ok := s.adapters.cancelWait(p.WaitID)
	return cancelWaitResult{Cancelled: ok, Adapter: adapterID, WaitID: p.WaitID}, nil
}

// adapterReadParams are the params of the adapter reads that redact.
type adapterReadParams struct {
	Adapter   string           `json:"adapter" rpc:"required"`
	Redact    *bool            `json:"redact"`
	Redaction *redactionParams `json:"redaction"`
}

func (p adapterReadParams) redactor() (*ptywright.Redactor, error) {
	return readParams{Redact: p.Redact, Redaction: p.Redaction}.redactor()
}

// adapterRead decodes a redacting read and returns its adapter and
// redactor (ptywright.NoRedaction(): raw).
func (s *Server) adapterRead(method string, raw []byte) (*adapter, *ptywright.Redactor, error) {
	var p adapterReadParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, nil, err
	}
	r, err := p.redactor()
	if err != nil {
		return nil, nil, err
	}
	a, err := s.adapterFor(method, p.Adapter)
	if err != nil {
		return nil, nil, err
	}
	return a, r, nil
}

// adapterSnapshotParams are adapter.snapshot's: a read, and what of the
// screen it carries (snapshotShape).
type adapterSnapshotParams struct {
	Adapter   string           `json:"adapter" rpc:"required"`
	Redact    *bool            `json:"redact"`
	Redaction *redactionParams `json:"redaction"`
	// Cells, CellFormat, Rows: see snapshotShape.
	Cells      *bool       `json:"cells"`
	CellFormat cellFormat  `json:"cell_format"`
	Rows       *rowsParams `json:"rows"`
}

// adapterSnapshot reads the session directly, without the adapter's lock:
// a snapshot does not wait for a turn in progress.
func (s *Server) adapterSnapshot(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterSnapshotParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	opts, err := snapshotShape{Cells: p.Cells, CellFormat: p.CellFormat, Rows: p.Rows}.options()
	if err != nil {
		return nil, err
	}
	if opts.Redactor, err = (readParams{Redact: p.Redact, Redaction: p.Redaction}).redactor(); err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.snapshot", p.Adapter)
	if err != nil {
		return nil, err
	}
	return snapshotJSON(a.h.Session().Snapshot(opts)), nil
}

func (s *Server) adapterTranscript(_ context.Context, _ *conn, raw []byte) (any, error) {
	a, r, err := s.adapterRead("adapter.transcript", raw)
	if err != nil {
		return nil, err
	}
	return transcriptResult{Text: a.h.Session().Transcript(r)}, nil
}

type inspectResult struct {
	Adapter        string                    `json:"adapter"`
	Plugin         string                    `json:"plugin"`
	State          ptywright.StateSnapshot   `json:"state"`
	PlainText      string                    `json:"plain_text"`
	BodyText       string                    `json:"body_text"`
	StatusText     string                    `json:"status_text"`
	TranscriptTail string                    `json:"transcript_tail"`
	Sequence       uint64                    `json:"sequence"`
	Projection     contract.DialogProjection `json:"projection"`
}

func (s *Server) adapterInspect(ctx context.Context, _ *conn, raw []byte) (any, error) {
	a, r, err := s.adapterRead("adapter.inspect", raw)
	if err != nil {
		return nil, err
	}
	in, err := a.h.Inspect(ctx, r)
	if err != nil {
		return nil, err
	}
	return inspectResult{
		Adapter:        a.id,
		Plugin:         a.plugin,
		State:          in.State,
		PlainText:      in.PlainText,
		BodyText:       in.BodyText,
		StatusText:     in.StatusText,
		TranscriptTail: in.TranscriptTail,
		Sequence:       in.Sequence,
		Projection:     in.Projection,
	}, nil
}

type extractParams struct {
	Adapter   string           `json:"adapter" rpc:"required"`
	Regex     *string          `json:"regex"`
	Sentinels []string         `json:"sentinels"`
	TailChars int              `json:"tail_chars"`
	Redact    *bool            `json:"redact"`
	Redaction *redactionParams `json:"redaction"`
}

// adapterExtract runs a caller-owned extraction over the adapter's
// projected dialog, redacted before it is searched like every other read:
// "redact": false searches the raw dialog, with the same screen.read
// permission a raw adapter.snapshot needs.
func (s *Server) adapterExtract(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p extractParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, err := readParams{Redact: p.Redact, Redaction: p.Redaction}.redactor()
	if err != nil {
		return nil, err
	}
	switch {
	case p.Regex == nil && p.Sentinels == nil:
		return nil, invalidParams("regex", "exactly one of regex or sentinels is required")
	case p.Regex != nil && p.Sentinels != nil:
		return nil, invalidParams("sentinels", "exactly one of regex or sentinels is allowed, not both")
	case p.Regex != nil && *p.Regex == "":
		return nil, invalidParams("regex", "must not be empty")
	case p.Sentinels != nil && (len(p.Sentinels) != 2 || p.Sentinels[0] == "" || p.Sentinels[1] == ""):
		return nil, invalidParams("sentinels", "must be [start, end], both non-empty")
	case p.TailChars < 0:
		return nil, invalidParams("tail_chars", "must not be negative, got %d", p.TailChars)
	}
	a, err := s.adapterFor("adapter.extract", p.Adapter)
	if err != nil {
		return nil, err
	}
	e := ptywright.Extraction{Sentinels: p.Sentinels, TailChars: p.TailChars, Redactor: r}
	if p.Regex != nil {
		e.Regex = *p.Regex
	}
	res, err := a.h.Extract(ctx, e)
	if errors.Is(err, ptywright.ErrNoMatch) {
		return res, nil // An outcome: "matched": false.
	}
	return res, err
}

func (s *Server) adapterLifecycle(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.lifecycle", p.Adapter)
	if err != nil {
		return nil, err
	}
	return a.h.Lifecycle(), nil
}

func (s *Server) adapterClose(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.close", p.Adapter)
	if err != nil {
		return nil, err
	}
	if s.adapters.take(a.id) != a {
		// Closed by another call in between.
		return nil, invalidParams("adapter", "unknown adapter %q", p.Adapter)
	}
	holdNotifications(ctx, a.e)
	if err := s.closeAdapter(a); err != nil {
		return nil, err
	}
	return closedResult{Closed: true, Exit: exitOf(a.h.Session())}, nil
}

// decidedBy names the client connection c as who decides the answers sent
// under ctx, for the audit log.
func decidedBy(ctx context.Context, c *conn) context.Context {
	if c == nil {
		return ctx
	}
	return ptywright.WithDecider(ctx, fmt.Sprintf("connection %d", c.id))
}

// policyResult is adapter.policy's result: the rules in force for the
// adapter, in the order they are tried, and whose they are.
type policyResult struct {
	Adapter string                 `json:"adapter"`
	Source  string                 `json:"source"`
	Rules   []ptywright.PolicyRule `json:"rules"`
}

// adapterPolicy shows the policy rules in force for an adapter.
func (s *Server) adapterPolicy(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p adapterParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	a, err := s.adapterFor("adapter.policy", p.Adapter)
	if err != nil {
		return nil, err
	}
	out := policyResult{Adapter: a.id, Source: a.policySource, Rules: []ptywright.PolicyRule{}}
	if a.policy != nil && a.policy.Rules != nil {
		out.Rules = a.policy.Rules
	}
	return out, nil
}
