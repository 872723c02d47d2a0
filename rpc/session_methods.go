package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"ptywright"
	"ptywright/internal/host"
)

// DefaultWaitTimeout is session.wait's timeout when timeout_ms is omitted.
const DefaultWaitTimeout = ptywright.DefaultWaitTimeout

// MaxWaitTimeout bounds timeout_ms: a larger value is a mistake, not a plan.
const MaxWaitTimeout = 24 * time.Hour

// DefaultInputTimeout bounds session.input's and adapter.send's write when
// timeout_ms is omitted: input to a program that stopped reading answers
// -32001, saying how much went in, instead of blocking forever.
const DefaultInputTimeout = 10 * time.Second

type createParams struct {
	// Program is required unless Preset names one.
	Program string `json:"program"`
	// Preset starts a program whose prompt the server knows (bash, sh,
	// zsh, python), for session.run (additive).
	Preset      string            `json:"preset"`
	Args        []string          `json:"args"`
	Cwd         string            `json:"cwd"`
	Env         map[string]string `json:"env"`
	Rows        int               `json:"rows"`
	Cols        int               `json:"cols"`
	PixelWidth  int               `json:"pixel_width"`
	PixelHeight int               `json:"pixel_height"`
	// Scrollback is how many rows that scroll off the top are kept for
	// session.snapshot's scrollback: 0 or omitted means the default, a
	// negative number none.
	Scrollback int `json:"scrollback"`
	// Engine is the terminal emulator ("vtcore" or "xvt"); "" means the
	// server's (Options.Engine).
	Engine              string `json:"engine"`
	TranscriptMaxChars  int    `json:"transcript_max_chars"`
	RawTranscriptPath   string `json:"raw_transcript_path"`
	RawTranscriptAppend bool   `json:"raw_transcript_append"`
	// RecordPath records the session as an asciicast v2 file (mode 0600,
	// never overwritten), redacted unless RecordRaw.
	RecordPath string `json:"record_path"`
	RecordRaw  bool   `json:"record_raw"`
	// KeepDetached leaves the daemons the program starts (processes that
	// left its process group and terminal session) running after
	// session.close and the server's exit; by default they are ended with
	// the session (ptywright.Options.KeepDetached).
	KeepDetached bool `json:"keep_detached"`
	// Owner is "shared" (the default: the session lives until closed) or
	// "connection" (closed with its process tree when the creating
	// connection ends); IdleTimeoutMs closes it after that long with no
	// request naming it.
	Owner         string `json:"owner"`
	IdleTimeoutMs *int64 `json:"idle_timeout_ms"`
}

// checkExplicitSize rejects rows or cols given as 0, as session.resize does:
// only an omitted size falls back to the default 24x80.
func checkExplicitSize(raw []byte, maxCells int) error {
	var p struct {
		Rows *int `json:"rows"`
		Cols *int `json:"cols"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return paramsError(err)
	}
	size := ptywright.Size{Rows: 1, Cols: 1}
	if p.Rows != nil {
		size.Rows = *p.Rows
	}
	if p.Cols != nil {
		size.Cols = *p.Cols
	}
	return size.ValidateCells(maxCells)
}

type sessionResult struct {
	Session string `json:"session"`
}

func (s *Server) sessionCreate(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p createParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	own, err := ownershipOf(c, p.Owner, p.IdleTimeoutMs)
	if err != nil {
		return nil, err
	}
	if p.Program == "" && p.Preset == "" {
		return nil, invalidParams("program", "must not be empty (or give a preset)")
	}
	if err := checkCwd(p.Cwd); err != nil {
		return nil, err
	}
	if p.TranscriptMaxChars < 0 {
		return nil, invalidParams("transcript_max_chars", "must not be negative, got %d", p.TranscriptMaxChars)
	}
	if err := checkExplicitSize(raw, s.opts.MaxCells); err != nil {
		return nil, err
	}
	engine := ptywright.Engine(p.Engine)
	if engine == "" {
		engine = s.opts.Engine
	}
	if err := engine.Validate(); err != nil {
		return nil, err
	}
	opts := ptywright.Options{
		Program:             p.Program,
		Args:                p.Args,
		Dir:                 p.Cwd,
		Env:                 p.Env,
		Size:                ptywright.Size{Rows: p.Rows, Cols: p.Cols, PixelWidth: p.PixelWidth, PixelHeight: p.PixelHeight},
		Scrollback:          p.Scrollback,
		Engine:              engine,
		TranscriptMaxChars:  p.TranscriptMaxChars,
		RawTranscriptPath:   p.RawTranscriptPath,
		RawTranscriptAppend: p.RawTranscriptAppend,
		RecordPath:          p.RecordPath,
		RecordRaw:           p.RecordRaw,
		KeepDetached:        p.KeepDetached,
		MaxCells:            s.opts.MaxCells,
	}
	var bind func(*entry)
	if p.Preset != "" {
		preset := ptywright.Preset(p.Preset)
		if opts, err = preset.Options(opts); err != nil {
			return nil, invalidParams("preset", "%v", err)
		}
		bind = func(e *entry) { e.shell.Store(ptywright.NewShell(e.sess, preset)) }
	}
	if err := hostError(host.CheckStrings(opts)); err != nil {
		return nil, err
	}
	leave, err := s.capacity.Enter()
	if err != nil {
		return nil, err
	}
	sess, err := ptywright.Start(opts)
	if err != nil {
		leave()
		return nil, startError(err)
	}
	e, err := s.reg.add(ctx, sess, "", leave, own, bind)
	if err != nil {
		_ = sess.Close() // Best effort: the server is closing.
		leave()
		return nil, err
	}
	s.log.Debug("session created", "session", e.id, "pid", sess.Pid())
	return sessionResult{Session: e.id}, nil
}

// checkCwd checks a working directory before spawning.
func checkCwd(cwd string) error {
	return hostError(host.CheckDir(cwd))
}

// hostError maps a *ptywright.FieldError from the host rules to invalid
// params naming its field.
func hostError(err error) error {
	var fe *ptywright.FieldError
	if errors.As(err, &fe) && errors.Is(err, host.ErrInvalidStart) {
		return invalidParams(fe.Field, "%s", fe.Reason)
	}
	return err
}

// startError classifies a failure to start: the caller's mistakes (see
// host.CallerStartError) are invalid params, naming the field when one
// explains it (host.StartError); anything else is the server's.
func startError(err error) error {
	if fe := hostError(host.StartError(err)); errors.Is(fe, ErrInvalidParams) {
		return fe
	}
	if host.CallerStartError(err) {
		return fmt.Errorf("%w: %w", ErrInvalidParams, err)
	}
	return err
}

// mutable returns session id for method, a mutation, and holds this
// connection's notifications about it until the response is out (hold.go).
// An adapter's session is refused, naming the adapter method to use
// instead: a mutation through session.* would bypass the adapter's
// permissions and its turn lock (another client could type into the
// middle of a turn). Reads of it (snapshot, transcript, wait) stay open.
// While a person has the terminal through another connection than c,
// every mutation is refused (personHasTerminal).
func (s *Server) mutable(ctx context.Context, c *conn, id, method, use string) (*entry, error) {
	e, err := s.reg.get(id)
	if err != nil {
		return nil, err
	}
	if err := personHasTerminal(e, c, method); err != nil {
		return nil, err
	}
	if e.adapter != "" {
		return nil, invalidParams("session", "session %s belongs to adapter %s: %s is refused on it (it would bypass the adapter's permissions and turn lock); use %s", e.id, e.adapter, method, use)
	}
	holdNotifications(ctx, e)
	return e, nil
}

type sessionListResult struct {
	Sessions []string `json:"sessions"`
	// Details, when asked for, says each session's adapter and owner.
	Details []sessionInfo `json:"details,omitempty"`
}

// listParams are session.list's: details adds each session's owner.
type listParams struct {
	Details bool `json:"details"`
}

// sessionInfo is one session of session.list's details.
type sessionInfo struct {
	Session       string `json:"session"`
	Adapter       string `json:"adapter,omitempty"`
	Owner         string `json:"owner"`
	IdleTimeoutMs int64  `json:"idle_timeout_ms,omitempty"`
	// Program is the program the session started (additive).
	Program string `json:"program,omitempty"`
	// Control says a person has the terminal (session.control; additive).
	Control bool `json:"control,omitempty"`
}

func (s *Server) sessionList(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p listParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	entries := s.reg.list()
	res := sessionListResult{Sessions: make([]string, len(entries))}
	if p.Details {
		res.Details = make([]sessionInfo, len(entries))
	}
	for i, e := range entries {
		res.Sessions[i] = e.id
		if p.Details {
			res.Details[i] = sessionInfo{Session: e.id, Adapter: e.adapter, Owner: e.own.mode(), IdleTimeoutMs: e.own.idle.Milliseconds(), Program: e.sess.Program(), Control: e.control.Load() != 0}
		}
	}
	return res, nil
}

type sessionParams struct {
	Session string `json:"session" rpc:"required"`
}

type inputParams struct {
	Session string           `json:"session" rpc:"required"`
	Action  ptywright.Action `json:"action" rpc:"required"`
	// TimeoutMs bounds the write, the wait for the writes before it
	// included (default DefaultInputTimeout).
	TimeoutMs *int64 `json:"timeout_ms"`
}

// inputResult is session.input's result: the reference's sent, plus the
// bytes written and the screen's sequence as the write began (additive):
// session.wait with after_sequence set to it sees only what followed.
type inputResult struct {
	Sent     bool   `json:"sent"`
	Bytes    int    `json:"bytes"`
	Sequence uint64 `json:"sequence"`
	// Signalled: an interrupt went as SIGINT to the foreground process
	// group because another write held the input (ptywright.Written).
	Signalled bool `json:"signalled,omitempty"`
}

func (s *Server) sessionInput(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p inputParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	use := "adapter.send or adapter.turn"
	switch p.Action.Type {
	case ptywright.ActionKill:
		use = "adapter.close"
	case ptywright.ActionResize:
		use = "adapter.send with an intent of its plugin"
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, DefaultInputTimeout)
	if err != nil {
		return nil, err
	}
	e, err := s.inputTarget(ctx, c, p.Session, use)
	if err != nil {
		return nil, err
	}
	defer e.busyFor()()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := e.sess.Perform(ctx, p.Action)
	if err != nil {
		return nil, err
	}
	return inputResult{Sent: true, Bytes: w.Bytes, Sequence: w.Sequence, Signalled: w.Signalled}, nil
}

type waitParams struct {
	Session   string            `json:"session" rpc:"required"`
	Matcher   ptywright.Matcher `json:"matcher" rpc:"required"`
	TimeoutMs *int64            `json:"timeout_ms"`
	// AfterSequence makes the wait see only screens after it (additive).
	AfterSequence *uint64 `json:"after_sequence"`
	// ExcludeEcho leaves the echo of the input written at AfterSequence
	// out of the text contains_text and screen_regex search (additive).
	ExcludeEcho bool `json:"exclude_echo"`
}

// waitResult is session.wait's result: the reference's evidence plus the
// outcome (which branch fired) and how long the screen had been stable.
type waitResult struct {
	Matched        bool                    `json:"matched"`
	Sequence       uint64                  `json:"sequence"`
	ElapsedMs      int64                   `json:"elapsed_ms"`
	Snapshot       wireSnapshot            `json:"snapshot"`
	TranscriptTail string                  `json:"transcript_tail"`
	Outcome        *ptywright.MatchOutcome `json:"outcome,omitempty"`
	StableForMs    int64                   `json:"stable_for_ms"`
}

func (s *Server) sessionWait(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p waitParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	timeout, err := waitTimeout("timeout_ms", p.TimeoutMs, DefaultWaitTimeout)
	if err != nil {
		return nil, err
	}
	e, err := s.reg.get(p.Session)
	if err != nil {
		return nil, err
	}
	defer e.busyFor()()
	var opts []ptywright.WaitOption
	if s.opts.Predicates != nil {
		opts = append(opts, ptywright.WithPredicates(s.opts.Predicates))
	}
	if p.AfterSequence != nil {
		opts = append(opts, ptywright.After(*p.AfterSequence))
	}
	if p.ExcludeEcho {
		if p.AfterSequence == nil {
			return nil, invalidParams("exclude_echo", "needs after_sequence, the sequence session.input returned")
		}
		w, ok := e.sess.InputAt(*p.AfterSequence)
		if !ok {
			return nil, invalidParams("exclude_echo", "none of the session's last 16 inputs began at sequence %d (after_sequence)", *p.AfterSequence)
		}
		opts = append(opts, ptywright.ExcludeEcho(w.Echo))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := e.sess.Wait(ctx, p.Matcher, opts...)
	if err != nil {
		return nil, err
	}
	return encodeWaitResult(waitResult{
		Matched:        res.Matched,
		Sequence:       res.Sequence,
		ElapsedMs:      res.Elapsed.Milliseconds(),
		Snapshot:       toWireSnapshot(res.Snapshot),
		TranscriptTail: res.TranscriptTail,
		Outcome:        res.Outcome,
		StableForMs:    res.StableFor.Milliseconds(),
	})
}

// readParams are the params of the reads that redact.
type readParams struct {
	Session   string           `json:"session" rpc:"required"`
	Redact    *bool            `json:"redact"`
	Redaction *redactionParams `json:"redaction"`
}

// redactionParams is the per-read redaction object. enabled must be
// present, and is forced to true: whether redaction runs is the top-level
// redact flag's decision.
type redactionParams struct {
	Enabled       *bool    `json:"enabled" rpc:"required"`
	Replacement   string   `json:"replacement"`
	ExtraLiterals []string `json:"extra_literals"`
	ExtraRegexes  []string `json:"extra_regexes"`
}

// redactor returns the redactor a read uses, ptywright.NoRedaction() for
// raw output. The redaction object is validated even when redact is false.
func (p readParams) redactor() (*ptywright.Redactor, error) {
	r := ptywright.DefaultRedactor()
	if p.Redaction != nil {
		policy := ptywright.RedactionPolicy{
			Enabled:       true,
			Replacement:   p.Redaction.Replacement,
			ExtraLiterals: p.Redaction.ExtraLiterals,
			ExtraRegexes:  p.Redaction.ExtraRegexes,
		}
		compiled, err := policy.Compile()
		if err != nil {
			var fe *ptywright.FieldError
			if errors.As(err, &fe) {
				return nil, invalidParams("redaction."+fe.Field, "%s", fe.Reason)
			}
			return nil, fmt.Errorf("%w: redaction: %w", ErrInvalidParams, err)
		}
		r = compiled
	}
	if p.Redact != nil && !*p.Redact {
		return ptywright.NoRedaction(), nil
	}
	return r, nil
}

// snapshotParams are session.snapshot's: a read, what of the screen it
// carries (snapshotShape), and whether to add the rows that scrolled off
// the top.
type snapshotParams struct {
	Session    string           `json:"session" rpc:"required"`
	Redact     *bool            `json:"redact"`
	Redaction  *redactionParams `json:"redaction"`
	Scrollback bool             `json:"scrollback"`
	// Cells, CellFormat, Rows: see snapshotShape.
	Cells      *bool       `json:"cells"`
	CellFormat cellFormat  `json:"cell_format"`
	Rows       *rowsParams `json:"rows"`
}

func (s *Server) sessionSnapshot(_ context.Context, _ *conn, raw []byte) (any, error) {
	var sp snapshotParams
	if err := decodeParams(raw, &sp); err != nil {
		return nil, err
	}
	opts, err := snapshotShape{Cells: sp.Cells, CellFormat: sp.CellFormat, Rows: sp.Rows}.options()
	if err != nil {
		return nil, err
	}
	p := readParams{Session: sp.Session, Redact: sp.Redact, Redaction: sp.Redaction}
	r, err := p.redactor()
	if err != nil {
		return nil, err
	}
	e, err := s.reg.get(p.Session)
	if err != nil {
		return nil, err
	}
	opts.Scrollback, opts.Redactor = sp.Scrollback, r
	// Encoded here, by hand (snapshot_json.go): through encoding/json, a
	// Marshaler's output is compacted once more, and its cells are
	// encoded by reflection.
	return snapshotJSON(e.sess.Snapshot(opts)), nil
}

type transcriptResult struct {
	Text string `json:"text"`
}

func (s *Server) sessionTranscript(_ context.Context, _ *conn, raw []byte) (any, error) {
	var p readParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	r, err := p.redactor()
	if err != nil {
		return nil, err
	}
	e, err := s.reg.get(p.Session)
	if err != nil {
		return nil, err
	}
	return transcriptResult{Text: e.sess.Transcript(r)}, nil
}

type resizeParams struct {
	Session     string `json:"session" rpc:"required"`
	Rows        int    `json:"rows" rpc:"required"`
	Cols        int    `json:"cols" rpc:"required"`
	PixelWidth  int    `json:"pixel_width"`
	PixelHeight int    `json:"pixel_height"`
}

func (s *Server) sessionResize(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p resizeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	size := ptywright.Size{Rows: p.Rows, Cols: p.Cols, PixelWidth: p.PixelWidth, PixelHeight: p.PixelHeight}
	if err := size.ValidateCells(s.opts.MaxCells); err != nil {
		return nil, err
	}
	e, err := s.mutable(ctx, c, p.Session, "session.resize", "adapter.send with an intent of its plugin")
	if err != nil {
		return nil, err
	}
	if err := e.sess.Resize(size); err != nil {
		return nil, err
	}
	return resizedResult{Resized: true}, nil
}

func (s *Server) sessionKill(ctx context.Context, c *conn, raw []byte) (any, error) {
	var p sessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	e, err := s.mutable(ctx, c, p.Session, "session.kill", "adapter.close")
	if err != nil {
		return nil, err
	}
	if err := e.sess.Kill(); err != nil {
		return nil, err
	}
	return killedResult{Killed: true}, nil
}

// sessionClose refuses an adapter's session: the adapter owns it, and
// closing it underneath would leave a live adapter over a dead session.
// adapter.close closes both.
func (s *Server) sessionClose(ctx context.Context, _ *conn, raw []byte) (any, error) {
	var p sessionParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	e, err := s.reg.get(p.Session)
	if err != nil {
		return nil, err
	}
	if e.adapter != "" {
		return nil, invalidParams("session", "session %s belongs to adapter %s: close it with adapter.close", e.id, e.adapter)
	}
	holdNotifications(ctx, e)
	if err := s.reg.remove(p.Session); err != nil {
		return nil, err
	}
	return closedResult{Closed: true, Exit: exitOf(e.sess)}, nil
}

// exitOf is how a closed session's program ended, nil when it is not known
// (it could not be waited for).
func exitOf(sess *ptywright.Session) *ptywright.ExitStatus {
	st, ok := sess.ExitStatus()
	if !ok || st.Err != nil {
		return nil
	}
	return &st
}
