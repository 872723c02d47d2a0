package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"ptywright"
	"ptywright/rpc"
)

// clientTimeout bounds a client call that is not a wait: the server bounds
// its own work (a write's 10 s default, a start), this only keeps a hung
// server from hanging a script.
const clientTimeout = 60 * time.Second

// waitMargin is how long past a wait's own timeout the client waits for the
// server's answer (the timeout's evidence) before giving up on it.
const waitMargin = 10 * time.Second

const clientDetails = `Talks to a running "ptywright serve" on its socket: --socket PATH, else
$PTYWRIGHT_SOCKET, else $PTYWRIGHT_HOME/socket, else ~/.ptywright/socket
(where "ptywright serve" listens by default). Sessions outlive the command
that started them: they end with "ptywright close" or with the server.

Exit codes: 0 done (matched), 1 timed out or no match, 2 any other error
(bad flags, no server on the socket, an unknown id, an error from the
server). --json prints the JSON-RPC result as it came, one line.
`

const startSynopsis = "start [--socket PATH] [--json] [--rows N] [--cols N] [--env KEY=VALUE]... [--cwd DIR] -- PROGRAM [ARGS...]"

const startDetails = `Starts PROGRAM on a new session of the server (session.create) and prints
the session's id. The program runs in the server's environment plus --env,
in this command's working directory unless --cwd says otherwise.

` + clientDetails

// startConfig is a validated `start` command line.
type startConfig struct {
	clientFlags
	Rows, Cols int
	Env        envList
	Cwd        string
	Program    string
	Args       []string
}

func startFlags(cfg *startConfig) *flag.FlagSet {
	fs := newFlagSet("start")
	cfg.clientFlags.bind(fs)
	fs.IntVar(&cfg.Rows, "rows", 0, "terminal height of `N` rows; default 24")
	fs.IntVar(&cfg.Cols, "cols", 0, "terminal width of `N` columns; default 80")
	fs.Var(&cfg.Env, "env", "set `KEY=VALUE` in the program's environment (repeatable)")
	fs.StringVar(&cfg.Cwd, "cwd", "", "run the program in `DIR`; default this command's working directory")
	return fs
}

func startCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg startConfig
	fs := startFlags(&cfg)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"rows", cfg.Rows}, {"cols", cfg.Cols}} {
		if isSet(fs, f.name) && (f.v < 1 || f.v > ptywright.MaxSizeCells) {
			return usagef("start", "--%s: must be between 1 and %d, got %d", f.name, ptywright.MaxSizeCells, f.v)
		}
	}
	if fs.NArg() == 0 || fs.Arg(0) == "" {
		return usagef("start", "no program given (ptywright %s)", startSynopsis)
	}
	cfg.Program, cfg.Args = fs.Arg(0), fs.Args()[1:]
	if cfg.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("start: %w (give --cwd)", err)}
		}
		cfg.Cwd = wd
	}
	c, err := newClient("start", cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	params := map[string]any{"program": cfg.Program, "args": cfg.Args, "cwd": cfg.Cwd}
	if cfg.Rows > 0 {
		params["rows"] = cfg.Rows
	}
	if cfg.Cols > 0 {
		params["cols"] = cfg.Cols
	}
	if len(cfg.Env) > 0 {
		params["env"] = cfg.Env.Map()
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	res, err := c.do(ctx, "session.create", params)
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct{ Session string }
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed("session.create", err)
	}
	_, err = fmt.Fprintln(stdout, out.Session)
	return err
}

const sendSynopsis = "send [--socket PATH] [--json] ID (--text TEXT | --key NAME | --paste TEXT)..."

const sendDetails = `Types into session ID (session.input, one call per flag, in the order
given): --text as typed on a keyboard, --key a named key (enter, escape,
tab, up, ctrl_c, f1, alt_left, ...; "ptywright send --keys" lists them),
--paste text wrapped in bracketed paste (for programs that enabled it, as
vim and most editors and shells do). Prints the screen's sequence as the input began: "ptywright wait
--after SEQ" then sees only what followed it.

` + clientDetails

// sendConfig is a validated `send` command line.
type sendConfig struct {
	clientFlags
	Session string
	Actions []ptywright.Action
	Keys    bool
}

func sendFlags(cfg *sendConfig) *flag.FlagSet {
	fs := newFlagSet("send")
	cfg.clientFlags.bind(fs)
	fs.Var(actionFlag{&cfg.Actions, "text"}, "text", "type `TEXT` (repeatable; in order with --key and --paste)")
	fs.Var(actionFlag{&cfg.Actions, "key"}, "key", "press the key `NAME`: enter, escape, tab, up, ctrl_c, f5, alt_left, ... (repeatable)")
	fs.Var(actionFlag{&cfg.Actions, "paste"}, "paste", "paste `TEXT` wrapped in bracketed paste, for programs that enabled it (repeatable)")
	fs.BoolVar(&cfg.Keys, "keys", false, "list the key names and exit")
	return fs
}

func sendCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg sendConfig
	fs := sendFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if cfg.Keys {
		for _, k := range ptywright.Keys() {
			fmt.Fprintln(stdout, k)
		}
		return nil
	}
	if cfg.Session, err = oneID("send", "session ID", pos); err != nil {
		return err
	}
	if len(cfg.Actions) == 0 {
		return usagef("send", "nothing to send: give --text, --key or --paste")
	}
	c, err := newClient("send", cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, clientTimeout)
	defer cancel()
	first := int64(-1)
	for _, a := range cfg.Actions {
		res, err := c.do(ctx, "session.input", map[string]any{"session": cfg.Session, "action": a})
		if err != nil {
			return c.noMatch(err) // A timeout: the program took not all of it.
		}
		if c.json {
			if err := c.printJSON(res); err != nil {
				return err
			}
			continue
		}
		var out struct{ Sequence int64 }
		if err := json.Unmarshal(res, &out); err != nil {
			return c.malformed("session.input", err)
		}
		if first < 0 {
			first = out.Sequence
		}
	}
	if c.json {
		return nil
	}
	_, err = fmt.Fprintln(stdout, first)
	return err
}

const waitSynopsis = "wait [--socket PATH] [--json] ID (--text TEXT | --regex RE | --exited) [--stable DURATION] [--after SEQ] [--timeout DURATION]"

const waitDetails = `Waits until session ID's screen shows --text, or a match of --regex (Go
RE2 over the screen's rows joined by newlines), and, with --stable, has
not changed for that long; --stable alone waits for a quiet screen;
--exited waits until the program has exited and its output is read.
Prints what matched: the text, or the regex's first group (else its whole
match), or the exit status.
On a timeout, or when the program exited and the screen can no longer
match, it exits 1 and prints the last screen on stderr.

` + clientDetails

// waitConfig is a validated `wait` command line.
type waitConfig struct {
	clientFlags
	Session       string
	Text, Regex   string
	Exited        bool
	Stable        time.Duration
	Timeout       time.Duration
	After         int64
	afterSet, set map[string]bool
}

func waitFlags(cfg *waitConfig) *flag.FlagSet {
	fs := newFlagSet("wait")
	cfg.clientFlags.bind(fs)
	fs.StringVar(&cfg.Text, "text", "", "wait for the screen to contain `TEXT`")
	fs.StringVar(&cfg.Regex, "regex", "", "wait for the screen to match `RE` (Go RE2; rows joined by \\n)")
	fs.BoolVar(&cfg.Exited, "exited", false, "wait until the program has exited")
	fs.DurationVar(&cfg.Stable, "stable", 0, "and for the screen to be unchanged for `DURATION` (500ms, 2s)")
	fs.DurationVar(&cfg.Timeout, "timeout", 30*time.Second, "give up after `DURATION`: exit 1")
	fs.Int64Var(&cfg.After, "after", -1, "match only screens after the sequence `SEQ` (what send printed)")
	return fs
}

func waitCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg waitConfig
	fs := waitFlags(&cfg)
	pos, help, err := parseClientArgs(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if cfg.Session, err = oneID("wait", "session ID", pos); err != nil {
		return err
	}
	matcher, err := cfg.matcher(fs)
	if err != nil {
		return err
	}
	c, err := newClient("wait", cfg.clientFlags, stdout, stderr)
	if err != nil {
		return err
	}
	params := map[string]any{"session": cfg.Session, "matcher": matcher, "timeout_ms": cfg.Timeout.Milliseconds()}
	if cfg.After >= 0 {
		params["after_sequence"] = cfg.After
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout+waitMargin)
	defer cancel()
	res, err := c.do(ctx, "session.wait", params)
	if err != nil {
		return c.noMatch(err)
	}
	if c.json {
		return c.printJSON(res)
	}
	var out struct {
		Outcome ptywright.MatchOutcome `json:"outcome"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return c.malformed("session.wait", err)
	}
	if s, ok := matchedText(out.Outcome); ok {
		_, err = fmt.Fprintln(stdout, s)
	}
	return err
}

// matcher builds the wait's matcher from the flags.
func (cfg *waitConfig) matcher(fs *flag.FlagSet) (map[string]any, error) {
	var text map[string]any
	n := 0
	for _, name := range []string{"text", "regex", "exited"} {
		if isSet(fs, name) {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, usagef("wait", "--text, --regex and --exited are mutually exclusive")
	case cfg.Exited && isSet(fs, "stable"):
		return nil, usagef("wait", "--exited and --stable are mutually exclusive")
	case cfg.Exited:
		text = map[string]any{"type": "process_exited"}
	case isSet(fs, "text") && cfg.Text == "":
		return nil, usagef("wait", "--text must not be empty")
	case isSet(fs, "text"):
		text = map[string]any{"type": "contains_text", "value": cfg.Text}
	case isSet(fs, "regex"):
		if err := ptywright.ScreenRegex(cfg.Regex).Validate(); err != nil {
			return nil, usagef("wait", "--regex: %v", err)
		}
		text = map[string]any{"type": "screen_regex", "value": cfg.Regex}
	case !isSet(fs, "stable"):
		return nil, usagef("wait", "nothing to wait for: give --text, --regex, --exited or --stable")
	}
	if cfg.Timeout < 0 {
		return nil, usagef("wait", "--timeout must not be negative")
	}
	if isSet(fs, "stable") && cfg.Stable <= 0 {
		return nil, usagef("wait", "--stable must be positive")
	}
	if !isSet(fs, "stable") {
		return text, nil
	}
	stable := map[string]any{"type": "screen_stable", "value": map[string]any{"min_ms": cfg.Stable.Milliseconds()}}
	if text == nil {
		return stable, nil
	}
	return map[string]any{"type": "all", "value": []any{text, stable}}, nil
}

// noMatch turns a timeout (-32001: a wait's deadline, or input that could
// not all go in) and a wait that can no longer match because the program
// exited (-32002 with the evidence) into exit 1, with the last screen on
// stderr when the error has it (or the error object with --json).
func (c *client) noMatch(err error) error {
	re := rpcError(err)
	if re == nil || (re.Code != rpc.CodeTimeout && re.Code != rpc.CodeSessionClosed) {
		return err
	}
	var ev struct {
		Snapshot *struct {
			PlainText string `json:"plain_text"`
		} `json:"snapshot"`
	}
	if len(re.Data) > 0 {
		_ = json.Unmarshal(re.Data, &ev) // Best effort: the screen is a courtesy.
	}
	if re.Code == rpc.CodeSessionClosed && ev.Snapshot == nil {
		return err // A session closed meanwhile: an error, not a non-match.
	}
	if c.json {
		b, jerr := json.Marshal(re)
		if jerr == nil {
			_ = c.printJSON(b) // Best effort: the exit code says it all.
		}
		return &exitError{code: exitNoMatch, err: fmt.Errorf("%s: %w", c.cmd, errQuiet)}
	}
	msg := redactText(withoutInnerPrefix(re.Message))
	if ev.Snapshot == nil {
		return &exitError{code: exitNoMatch, err: fmt.Errorf("%s: %s", c.cmd, msg)}
	}
	// Best effort: the exit code says it all.
	_, _ = fmt.Fprintf(c.stderr, "ptywright %s: %s\nlast screen:\n%s\n", c.cmd, msg, indent(ev.Snapshot.PlainText))
	return &exitError{code: exitNoMatch, err: fmt.Errorf("%s: %w", c.cmd, errQuiet)}
}

// errQuiet is a failure whose message was already printed.
var errQuiet = errors.New("(reported above)")

// matchedText is what a wait's outcome matched: a regex's capture or the
// searched text, the first found in its branches.
func matchedText(o ptywright.MatchOutcome) (string, bool) {
	switch {
	case o.Capture != nil:
		return *o.Capture, true
	case o.Text != "":
		return o.Text, true
	case o.Exit != nil && o.Exit.Signal != "":
		return "killed by signal " + o.Exit.Signal, true
	case o.Exit != nil:
		return fmt.Sprintf("exit code %d", o.Exit.Code), true
	}
	for _, b := range o.Matched {
		if s, ok := matchedText(b); ok {
			return s, true
		}
	}
	return "", false
}

// indent prefixes each line of a screen so that it stands apart from the
// messages around it.
func indent(text string) string {
	return "  | " + strings.ReplaceAll(text, "\n", "\n  | ")
}

func (c *client) malformed(method string, err error) error {
	return &exitError{code: exitUsage, err: fmt.Errorf("%s: decoding the %s result: %w", c.cmd, method, err)}
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// oneID returns the one positional argument a command takes.
func oneID(cmd, what string, pos []string) (string, error) {
	switch {
	case len(pos) == 0:
		return "", usagef(cmd, "%s required", what)
	case len(pos) > 1:
		return "", usagef(cmd, "unexpected argument %q", pos[1])
	case pos[0] == "":
		return "", usagef(cmd, "%s must not be empty", what)
	}
	return pos[0], nil
}

// actionFlag is a repeatable flag that appends one kind of action to a list
// shared with the other kinds, keeping the command line's order.
type actionFlag struct {
	list *[]ptywright.Action
	kind string
}

func (f actionFlag) String() string { return "" }

func (f actionFlag) Set(s string) error {
	switch f.kind {
	case "key":
		k, err := ptywright.ParseKey(s)
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), "ptywright: "))
		}
		*f.list = append(*f.list, ptywright.Press(k))
	case "paste":
		*f.list = append(*f.list, ptywright.BracketedPaste(s))
	default:
		*f.list = append(*f.list, ptywright.Text(s))
	}
	return nil
}

// envList is a repeatable KEY=VALUE flag.
type envList []string

func (l *envList) String() string { return strings.Join(*l, " ") }

func (l *envList) Set(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	*l = append(*l, s)
	return nil
}

// Map returns the variables, the last of a repeated key winning.
func (l envList) Map() map[string]string {
	m := make(map[string]string, len(l))
	for _, kv := range l {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
