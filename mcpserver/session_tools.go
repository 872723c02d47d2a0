package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"ptywright"
	"ptywright/internal/host"
)

type sessionStartIn struct {
	Program string            `json:"program" jsonschema:"the program to run: a name looked up on PATH (bash, python3, vim) or a path"`
	Args    []string          `json:"args,omitempty" jsonschema:"its arguments"`
	Cwd     string            `json:"cwd,omitempty" jsonschema:"the working directory; default: the server's"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"variables added to the server's environment"`
	Rows    int               `json:"rows,omitempty" jsonschema:"terminal height in rows; default 24"`
	Cols    int               `json:"cols,omitempty" jsonschema:"terminal width in columns; default 80"`
}

type sessionStartOut struct {
	Session string `json:"session" jsonschema:"the session id the other session_* tools take"`
	Pid     int    `json:"pid"`
	Rows    int    `json:"rows"`
	Cols    int    `json:"cols"`
}

type sessionIn struct {
	Session string `json:"session" jsonschema:"the session id"`
}

type sessionSendIn struct {
	Session string   `json:"session" jsonschema:"the session id"`
	Text    string   `json:"text,omitempty" jsonschema:"text to type, sent as is: a newline in it is a line feed, not Enter; prefer the enter key to submit"`
	Keys    []string `json:"keys,omitempty" jsonschema:"keys to press after the text, in order: enter, tab, shift_tab, backspace, escape, space, up, down, left, right, home, end, page_up, page_down, insert, delete, ctrl_a..ctrl_z, f1..f12; modifier prefixes ctrl_ alt_ shift_, in that order, on arrows, home, end, page_*, insert, delete, f1..f12 (alt_left, ctrl_shift_f5)"`
}

type sessionSendOut struct {
	Sent bool `json:"sent"`
	// Keys is how many keys were pressed.
	Keys  int `json:"keys"`
	Bytes int `json:"bytes" jsonschema:"bytes written to the program"`
	// Sequence is the screen's sequence as the first write began.
	Sequence uint64 `json:"sequence" jsonschema:"pass it to session_wait as after_sequence to see only what this input caused"`
}

type sessionWaitIn struct {
	Session   string `json:"session" jsonschema:"the session id"`
	Text      string `json:"text,omitempty" jsonschema:"wait until this text is on screen"`
	Regex     string `json:"regex,omitempty" jsonschema:"Go RE2 regular expression on the screen text"`
	StableMs  int64  `json:"stable_ms,omitempty" jsonschema:"wait until the screen has not changed for this many ms"`
	Exited    bool   `json:"exited,omitempty" jsonschema:"wait until the program exits"`
	TimeoutMs int64  `json:"timeout_ms,omitempty" jsonschema:"give up after this many ms; default 30000"`
	// AfterSequence holds the wait until the screen changes after it.
	AfterSequence *uint64 `json:"after_sequence,omitempty" jsonschema:"session_send's sequence: only a screen drawn after that input matches (not an old prompt), and text/regex skip its echo (the typed command line)"`
}

type sessionWaitOut struct {
	Matched   bool   `json:"matched" jsonschema:"the condition held; false when the wait timed out or the program exited first"`
	TimedOut  bool   `json:"timed_out"`
	ElapsedMs int64  `json:"elapsed_ms"`
	Screen    string `json:"screen" jsonschema:"the screen as text when the wait ended"`
	Capture   string `json:"capture,omitempty" jsonschema:"for regex: the first capture group, or the whole match"`
	exitInfo
}

// exitInfo says whether and how the program ended.
type exitInfo struct {
	Exited   bool   `json:"exited"`
	ExitCode *int   `json:"exit_code,omitempty" jsonschema:"the exit code, -1 when a signal ended it"`
	Signal   string `json:"signal,omitempty" jsonschema:"the signal that ended it, if one did"`
}

func exitOf(sess *ptywright.Session) exitInfo {
	st, ok := sess.ExitStatus()
	if !ok {
		return exitInfo{}
	}
	code := st.Code
	return exitInfo{Exited: true, ExitCode: &code, Signal: st.Signal}
}

type sessionSnapshotIn struct {
	Session string `json:"session" jsonschema:"the session id"`
	Cells   bool   `json:"cells,omitempty" jsonschema:"also return colours and attributes, as runs of cells of one style"`
	// CellFormat: runs by default, a model pays for every byte.
	CellFormat string `json:"cell_format,omitempty" jsonschema:"with cells: runs (default) or cells (one object per cell, ~250 bytes each)"`
	FromRow    int    `json:"from_row,omitempty" jsonschema:"only the rows from this one on (0 is the top); text, cells and runs cover only those"`
	ToRow      int    `json:"to_row,omitempty" jsonschema:"only the rows before this one; default: to the last"`
}

// snapshotOptions are the snapshot options in asks for, or an error
// naming the argument that is wrong.
func (in sessionSnapshotIn) snapshotOptions() (ptywright.SnapshotOptions, error) {
	var opts ptywright.SnapshotOptions
	switch in.CellFormat {
	case "", "runs":
		opts.Runs = in.Cells
	case "cells":
		opts.Cells = in.Cells
	default:
		return opts, fmt.Errorf(`cell_format: must be "runs" or "cells", got %q`, in.CellFormat)
	}
	if in.CellFormat != "" && !in.Cells {
		return opts, errors.New("cell_format: give cells: true with it (without cells there are no cells to format)")
	}
	switch {
	case in.FromRow < 0:
		return opts, fmt.Errorf("from_row: must be at least 0, got %d", in.FromRow)
	case in.ToRow < 0 || in.ToRow != 0 && in.ToRow <= in.FromRow:
		return opts, fmt.Errorf("to_row: must be greater than from_row (%d), got %d", in.FromRow, in.ToRow)
	case in.FromRow != 0 || in.ToRow != 0:
		opts.Rows = &ptywright.RowRange{From: in.FromRow, To: in.ToRow}
	}
	return opts, nil
}

type sessionSnapshotOut struct {
	Text     string           `json:"text" jsonschema:"the screen, rows joined by newlines, trailing blanks trimmed"`
	Cursor   ptywright.Cursor `json:"cursor" jsonschema:"zero-based cursor row and column"`
	Rows     int              `json:"rows"`
	Cols     int              `json:"cols"`
	Title    string           `json:"title,omitempty"`
	Sequence uint64           `json:"sequence" jsonschema:"advances on every screen change"`
	// AlternateScreen says a full-screen program (an editor, a pager) is
	// drawing.
	AlternateScreen bool `json:"alternate_screen"`
	// RowRange is the rows the text, cells and runs cover, when from_row
	// or to_row was given.
	RowRange *ptywright.RowRange `json:"row_range,omitempty" jsonschema:"the rows text, cells and runs cover, from (0 is the top) up to, not including, to; only when from_row or to_row was given"`
	Cells    []ptywright.Cell    `json:"cells,omitempty"`
	Runs     []ptywright.CellRun `json:"runs,omitempty" jsonschema:"the cells of each row as runs of one style: text from row, col on; a wide run's characters take two columns each; a single run is one cell"`
	exitInfo
}

type sessionCloseOut struct {
	Closed bool `json:"closed"`
	exitInfo
}

func (c *client) addSessionTools(srv *mcp.Server) {
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_start",
		Title: "Start a terminal program",
		Description: "Start a program on a new pseudo-terminal (colours, cursor keys and full-screen programs work) and return its session id: " +
			"a shell, a REPL, an editor or any interactive program, then driven with session_send, session_wait and session_snapshot. " +
			"Close it with session_close; all are closed when you disconnect.",
	}), c.sessionStart)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_send",
		Title: "Type into a terminal program",
		Description: "Type text and/or press keys: the text first, then the keys in order. " +
			"To run a shell command send {\"text\": \"ls -l\", \"keys\": [\"enter\"]}; ctrl_c interrupts. " +
			"It returns once the input is written: then call session_wait with the returned sequence as after_sequence, so only the program's answer matches, not the echo of what you typed.",
	}), c.sessionSend)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_wait",
		Title: "Wait for a terminal program",
		Description: "Wait until the screen shows something: exactly one of text (a substring), regex (on the screen text), stable_ms (no change for that long) or exited (the program ended). " +
			"Returns matched, the elapsed time and the screen text. A timeout, or an exit first, is not an error: matched is false, with the last screen (and the exit code). " +
			"Prefer the text you expect over stable_ms; after session_send pass its sequence as after_sequence, or an old prompt still on screen answers at once.",
	}), c.sessionWait)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_snapshot",
		Title: "Read a terminal screen",
		Description: "Read a session's screen now: text, cursor, size, title, and whether the program exited; secrets redacted. " +
			"Ask for cells only when colours or attributes matter. from_row and to_row read some rows of a large screen.",
	}), c.sessionSnapshot)
	mcp.AddTool(srv, leanTool(&mcp.Tool{
		Name:  "session_close",
		Title: "Close a terminal program",
		Description: "End a session: the program and all it started are terminated (SIGHUP, SIGTERM, then SIGKILL) and reaped; returns the exit code. " +
			"A session from adapter_start is closed with adapter_close.",
	}), c.sessionClose)
}

func (c *client) sessionStart(_ context.Context, _ *mcp.CallToolRequest, in sessionStartIn) (*mcp.CallToolResult, sessionStartOut, error) {
	if in.Program == "" {
		return nil, sessionStartOut{}, errors.New("program: must not be empty")
	}
	if err := host.CheckDir(in.Cwd); err != nil {
		return nil, sessionStartOut{}, toolError(err)
	}
	opts := ptywright.Options{Program: in.Program, Args: in.Args, Dir: in.Cwd, Env: in.Env, Size: ptywright.Size{Rows: in.Rows, Cols: in.Cols}, MaxCells: c.srv.opts.MaxCells}
	if err := host.CheckStrings(opts); err != nil {
		return nil, sessionStartOut{}, toolError(err)
	}
	leave, err := c.srv.capacity.Enter()
	if err != nil {
		return nil, sessionStartOut{}, toolError(err)
	}
	sess, err := ptywright.Start(opts)
	if err != nil {
		leave()
		return nil, sessionStartOut{}, toolError(fmt.Errorf("starting %s: %w", in.Program, host.StartError(err)))
	}
	e, err := c.addSession(sess, leave)
	if err != nil {
		return nil, sessionStartOut{}, err
	}
	size := sess.Size()
	out := sessionStartOut{Session: e.id, Pid: sess.Pid(), Rows: size.Rows, Cols: size.Cols}
	c.srv.log.Debug("session started", "session", e.id, "pid", out.Pid)
	return textResult(fmt.Sprintf("Started session %s (%s, pid %d, %dx%d). Next: session_wait for its prompt or session_snapshot.", e.id, in.Program, out.Pid, size.Cols, size.Rows)), out, nil
}

func (c *client) sessionSend(ctx context.Context, _ *mcp.CallToolRequest, in sessionSendIn) (*mcp.CallToolResult, sessionSendOut, error) {
	if in.Text == "" && len(in.Keys) == 0 {
		return nil, sessionSendOut{}, errors.New("nothing to send: give text, keys or both")
	}
	// Every key is checked before anything is written: a typo must not
	// leave half an input behind.
	keys := make([]ptywright.Key, len(in.Keys))
	for i, name := range in.Keys {
		k, err := ptywright.ParseKey(name)
		if err != nil {
			return nil, sessionSendOut{}, fmt.Errorf("keys[%d]: %w (nothing was sent)", i, err)
		}
		keys[i] = k
	}
	e, err := c.session(in.Session)
	if err != nil {
		return nil, sessionSendOut{}, err
	}
	// A program that stopped reading must not hold the call forever: the
	// error says how much of the input went in.
	ctx, cancel := context.WithTimeout(ctx, DefaultInputTimeout)
	defer cancel()
	out := sessionSendOut{Sent: true, Keys: len(keys)}
	first := true
	perform := func(a ptywright.Action) error {
		w, err := e.sess.Perform(ctx, a)
		if first {
			out.Sequence, first = w.Sequence, false
		}
		out.Bytes += w.Bytes
		return err
	}
	if in.Text != "" {
		if err := perform(ptywright.Text(in.Text)); err != nil {
			return nil, sessionSendOut{}, toolError(err)
		}
	}
	for i, k := range keys {
		if err := perform(ptywright.Press(k)); err != nil {
			return nil, sessionSendOut{}, toolError(fmt.Errorf("keys[%d] %s: %w", i, k, err))
		}
	}
	return textResult(fmt.Sprintf("Sent to %s%s (sequence %d: pass it to session_wait as after_sequence to see only what follows).", e.id, describeInput(in), out.Sequence)), out, nil
}

func describeInput(in sessionSendIn) string {
	s := ""
	if in.Text != "" {
		s += fmt.Sprintf(" text (%d characters)", len([]rune(in.Text)))
	}
	if len(in.Keys) > 0 {
		if s != "" {
			s += " then"
		}
		s += fmt.Sprintf(" keys %v", in.Keys)
	}
	return s
}

// waitCondition turns session_wait's one condition into a matcher and words
// for the model.
func waitCondition(in sessionWaitIn) (ptywright.Matcher, string, error) {
	var ms []ptywright.Matcher
	var what string
	if in.Text != "" {
		ms, what = append(ms, ptywright.ContainsText(in.Text)), fmt.Sprintf("text %q", in.Text)
	}
	if in.Regex != "" {
		ms, what = append(ms, ptywright.ScreenRegex(in.Regex)), fmt.Sprintf("regex %q", in.Regex)
	}
	if in.StableMs != 0 {
		if in.StableMs < 0 {
			return ptywright.Matcher{}, "", fmt.Errorf("stable_ms: must be positive, got %d", in.StableMs)
		}
		ms, what = append(ms, ptywright.ScreenStable(time.Duration(in.StableMs)*time.Millisecond)), fmt.Sprintf("the screen stable for %d ms", in.StableMs)
	}
	if in.Exited {
		ms, what = append(ms, ptywright.ProcessExited()), "the program to exit"
	}
	if len(ms) != 1 {
		return ptywright.Matcher{}, "", fmt.Errorf("give exactly one of text, regex, stable_ms or exited (got %d)", len(ms))
	}
	if err := ms[0].Validate(); err != nil {
		return ptywright.Matcher{}, "", err
	}
	return ms[0], what, nil
}

func timeoutOf(ms int64, def time.Duration) (time.Duration, error) {
	if ms == 0 {
		return def, nil
	}
	if ms < 0 || ms > MaxWaitTimeout.Milliseconds() {
		return 0, fmt.Errorf("timeout_ms: must be between 1 and %d, got %d", MaxWaitTimeout.Milliseconds(), ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

func (c *client) sessionWait(ctx context.Context, req *mcp.CallToolRequest, in sessionWaitIn) (*mcp.CallToolResult, sessionWaitOut, error) {
	m, what, err := waitCondition(in)
	if err != nil {
		return nil, sessionWaitOut{}, err
	}
	timeout, err := timeoutOf(in.TimeoutMs, DefaultWaitTimeout)
	if err != nil {
		return nil, sessionWaitOut{}, err
	}
	e, err := c.session(in.Session)
	if err != nil {
		return nil, sessionWaitOut{}, err
	}
	// A program that exits ends the wait: nothing will appear after that.
	target := m
	if m.Type != ptywright.MatchProcessExited {
		m = ptywright.Any(m, ptywright.ProcessExited())
	}
	stop := c.progress(ctx, req, "waiting for "+what)
	defer stop()
	var opts []ptywright.WaitOption
	if in.AfterSequence != nil {
		opts = append(opts, ptywright.After(*in.AfterSequence))
		if w, ok := e.sess.InputAt(*in.AfterSequence); ok {
			opts = append(opts, ptywright.ExcludeEcho(w.Echo))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := e.sess.Wait(ctx, m, opts...)
	var out sessionWaitOut
	var we *ptywright.WaitError
	switch {
	case err == nil:
		out = sessionWaitOut{Matched: fired(res.Outcome, target.Type), ElapsedMs: res.Elapsed.Milliseconds(), Screen: res.Snapshot.PlainText}
		if res.Outcome != nil {
			out.Capture = captureOf(res.Outcome, target.Type)
		}
	case errors.As(err, &we) && errors.Is(err, ptywright.ErrTimeout):
		out = sessionWaitOut{TimedOut: true, ElapsedMs: we.Elapsed.Milliseconds(), Screen: we.Snapshot.PlainText}
	default:
		return nil, sessionWaitOut{}, toolError(err)
	}
	out.exitInfo = exitOf(e.sess)
	return textResult(waitText(e.id, what, out)), out, nil
}

// fired says whether the branch of kind fired in the outcome of a wait on
// Any(target, exited), or of the target alone.
func fired(out *ptywright.MatchOutcome, kind ptywright.MatcherType) bool {
	if out == nil {
		return false
	}
	if out.Kind == kind {
		return true
	}
	for _, m := range out.Matched {
		if m.Kind == kind {
			return true
		}
	}
	return false
}

func captureOf(out *ptywright.MatchOutcome, kind ptywright.MatcherType) string {
	if out.Kind == kind && out.Capture != nil {
		return *out.Capture
	}
	for _, m := range out.Matched {
		if m.Kind == kind && m.Capture != nil {
			return *m.Capture
		}
	}
	return ""
}

func (c *client) sessionSnapshot(_ context.Context, _ *mcp.CallToolRequest, in sessionSnapshotIn) (*mcp.CallToolResult, sessionSnapshotOut, error) {
	e, err := c.session(in.Session)
	if err != nil {
		return nil, sessionSnapshotOut{}, err
	}
	opts, err := in.snapshotOptions()
	if err != nil {
		return nil, sessionSnapshotOut{}, err
	}
	// Redacted with the default redactor, as every read is.
	snap := e.sess.Snapshot(opts)
	out := sessionSnapshotOut{
		Text:            snap.PlainText,
		Cursor:          snap.Cursor,
		Rows:            snap.Size.Rows,
		Cols:            snap.Size.Cols,
		Title:           snap.Title,
		Sequence:        snap.Sequence,
		AlternateScreen: snap.AlternateScreen,
		RowRange:        snap.Rows,
		Cells:           snap.Cells,
		Runs:            snap.Runs,
		exitInfo:        exitOf(e.sess),
	}
	return textResult(snapshotText(e.id, out)), out, nil
}

func (c *client) sessionClose(_ context.Context, _ *mcp.CallToolRequest, in sessionIn) (*mcp.CallToolResult, sessionCloseOut, error) {
	e, err := c.takeSession(in.Session)
	if err != nil {
		return nil, sessionCloseOut{}, err
	}
	if err := e.close(); err != nil {
		return nil, sessionCloseOut{}, toolError(fmt.Errorf("closing %s: %w", e.id, err))
	}
	out := sessionCloseOut{Closed: true, exitInfo: exitOf(e.sess)}
	return textResult(fmt.Sprintf("Closed session %s%s.", e.id, exitWords(out.exitInfo))), out, nil
}
