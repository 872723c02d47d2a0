package ptywright

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Preset names a program whose prompt ptywright sets and recognises, so
// that Shell.Run can tell a command's output from its echo and the next
// prompt, and read its exit status.
type Preset string

// The presets.
const (
	// PresetBash is bash without start-up files (--norc --noprofile).
	PresetBash Preset = "bash"
	// PresetSh is the system's sh (dash on Debian) with ENV unset.
	PresetSh Preset = "sh"
	// PresetZsh is zsh without start-up files (-f).
	PresetZsh Preset = "zsh"
	// PresetPython is python3's REPL (-q -i); a command's status is 1 when
	// it raised an exception, 0 otherwise.
	PresetPython Preset = "python"
)

// ErrPresetUnavailable is returned for a preset whose program is not
// installed, or a name that is no preset. It is also ErrInvalidParams.
var ErrPresetUnavailable = invalidInput("ptywright: preset unavailable", nil)

// Presets returns the presets, in the order an unknown name's error lists
// them.
func Presets() []Preset { return []Preset{PresetBash, PresetSh, PresetZsh, PresetPython} }

// The prompts a preset sets: an OSC 7777 sequence, which a terminal
// ignores and the transcript keeps, carrying the last status, then a
// visible prompt.
const (
	presetOSC     = "\x1b]7777;ptw-"
	presetEnd     = presetOSC + "e;" // + status + BEL: the prompt
	presetCont    = presetOSC + "c\a"
	presetStart   = presetOSC + "s\a" // bash's PS0: a command starts
	shellPrompt   = "$ "
	shellPrompt2  = "> "
	pythonPrompt  = ">>> "
	pythonPrompt2 = "... "
)

// presetPromptRe matches a preset's prompt at the end of the output: the
// status and the visible prompt, then only control sequences (zsh clears
// the rest of the line and turns bracketed paste on).
var presetPromptRe = regexp.MustCompile(regexp.QuoteMeta(presetEnd) + `(\d+)\a(?:\$ |>>> )(?:\x1b\[[0-9;?]*[A-Za-z])*\z`)

// pythonSetup runs before python3's REPL starts: prompts that carry the
// status of the last statement (1 when it raised, as the REPL records in
// sys.last_value).
const pythonSetup = `import sys
class _PtwPrompt:
    last = None
    def __str__(self):
        e = getattr(sys, "last_value", None)
        status = 1 if e is not None and e is not type(self).last else 0
        type(self).last = e
        return "` + presetEnd + `%d\a` + pythonPrompt + `" % status
sys.ps1 = _PtwPrompt()
sys.ps2 = "` + presetCont + pythonPrompt2 + `"
del _PtwPrompt`

// Options returns opts set up to start the preset's program with its
// known prompt: Program (looked up in PATH unless opts.Program names it),
// Args (the preset's, then opts.Args) and, unless opts.Env sets them
// already, the prompts (PS1, PS2, PS0), HISTFILE=/dev/null,
// INPUTRC=/dev/null and, for sh, ENV="" (no start-up file). An error
// wrapping ErrPresetUnavailable says the program is not installed, or p
// is no preset.
func (p Preset) Options(opts Options) (Options, error) {
	var prog string
	var args []string
	env := map[string]string{"HISTFILE": "/dev/null", "INPUTRC": "/dev/null"}
	switch p {
	case PresetBash:
		prog, args = "bash", []string{"--norc", "--noprofile"}
		env["PS1"] = `\[` + presetEnd + `$?\a\]` + shellPrompt
		env["PS2"] = `\[` + presetCont + `\]` + shellPrompt2
		env["PS0"] = presetStart
	case PresetSh:
		prog = "sh"
		env["PS1"] = presetEnd + "$?\a" + shellPrompt
		env["PS2"] = presetCont + shellPrompt2
		env["ENV"] = ""
	case PresetZsh:
		prog, args = "zsh", []string{"-f", "+o", "PROMPT_SP", "+o", "PROMPT_CR"}
		env["PS1"] = "%{" + presetEnd + "%?\a%}" + shellPrompt
		env["PS2"] = "%{" + presetCont + "%}" + shellPrompt2
	case PresetPython:
		prog, args = "python3", []string{"-q", "-i", "-c", pythonSetup}
		env["PYTHON_BASIC_REPL"] = "1"
	default:
		names := make([]string, 0, 4)
		for _, q := range Presets() {
			names = append(names, string(q))
		}
		return opts, fmt.Errorf("%w: unknown preset %q (presets: %s)", ErrPresetUnavailable, p, strings.Join(names, ", "))
	}
	if opts.Program == "" {
		path, err := exec.LookPath(prog)
		if err != nil {
			return opts, fmt.Errorf("%w: preset %s: %s is not installed: %w", ErrPresetUnavailable, p, prog, err)
		}
		opts.Program = path
	}
	opts.Args = append(args, opts.Args...)
	merged := make(map[string]string, len(env)+len(opts.Env))
	for k, v := range env {
		merged[k] = v
	}
	for k, v := range opts.Env {
		merged[k] = v
	}
	opts.Env = merged
	return opts, nil
}

// Shell drives a session started from a Preset: it knows the program's
// prompt, so it can run one command at a time and return its output and
// status. Runs go one at a time: a Run waits, within its ctx, for the one
// before it to end.
type Shell struct {
	s      *Session
	preset Preset
	turn   chan struct{} // held by the Run under way
}

// StartShell starts the preset's program (see Preset.Options) and waits,
// within ctx (DefaultWaitTimeout when ctx has no deadline), for its first
// prompt. On error nothing is left running.
func StartShell(ctx context.Context, p Preset, opts Options) (*Shell, error) {
	opts, err := p.Options(opts)
	if err != nil {
		return nil, err
	}
	s, err := Start(opts)
	if err != nil {
		return nil, err
	}
	sh := NewShell(s, p)
	if _, err := sh.WaitPrompt(ctx); err != nil {
		_ = s.Close() // Best effort: the wait's error says more.
		return nil, fmt.Errorf("ptywright: preset %s: no prompt: %w", p, err)
	}
	return sh, nil
}

// NewShell drives s, a session started with p.Options, as a Shell.
func NewShell(s *Session, p Preset) *Shell {
	return &Shell{s: s, preset: p, turn: make(chan struct{}, 1)}
}

// Session returns the session the shell runs in.
func (sh *Shell) Session() *Session { return sh.s }

// Preset returns the shell's preset.
func (sh *Shell) Preset() Preset { return sh.preset }

// Close closes the session (Session.Close).
func (sh *Shell) Close() error { return sh.s.Close() }

// WaitPrompt waits until the program is back at its prompt: the prompt is
// the last thing it wrote. The result's Outcome.Capture is the status
// the prompt carries (the last command's). With opts (After, say) it
// waits for a prompt after an input.
func (sh *Shell) WaitPrompt(ctx context.Context, opts ...WaitOption) (*WaitResult, error) {
	return sh.s.Wait(ctx, TranscriptRegex(presetPromptRe.String()), opts...)
}

// RunResult is what Shell.Run read of one command.
type RunResult struct {
	// Output is what the command wrote, without its echo and the prompt
	// after it, escape sequences stripped and line ends as "\n";
	// redacted with the session's redactor.
	Output string
	// Status is the command's exit status ($?); for python, 1 when the
	// statement raised an exception. When the program itself exited
	// (Exited), its exit code.
	Status int
	// Exited says the program exited instead of prompting again (the
	// command was exit, say).
	Exited bool
}

// Run types cmd and Enter at the prompt, waits for the next prompt and
// returns what the command wrote and its status. cmd's lines ("\n") are
// typed as lines: for a shell, several lines are typed as one group
// command ({ ...; }, which runs in the shell itself, as the lines would),
// so the status is the last command's; for python, cmd is one statement,
// which may be a compound one over several lines (it is ended with an
// empty line). It waits for the prompt first, so a Run after input sent
// otherwise waits for the program to be ready. A tab in cmd is typed as
// a tab (completion). A command that leaves the program waiting for more
// input (an unclosed quote) waits until ctx ends: Run then returns the
// *WaitError.
func (sh *Shell) Run(ctx context.Context, cmd string) (RunResult, error) {
	select {
	case sh.turn <- struct{}{}:
		defer func() { <-sh.turn }()
	case <-ctx.Done():
		return RunResult{}, cancelErr(ctx.Err())
	}
	if _, err := sh.WaitPrompt(ctx); err != nil {
		return RunResult{}, err
	}
	cursor := sh.s.TranscriptCursor()
	lines := strings.Split(strings.ReplaceAll(cmd, "\r\n", "\n"), "\n")
	switch {
	case len(lines) == 1:
	case sh.preset == PresetPython:
		if lines[len(lines)-1] != "" {
			lines = append(lines, "")
		}
	default:
		// One command, one prompt after it: each line alone would
		// prompt again after running.
		lines[0] = "{ " + lines[0]
		lines = append(lines, "}")
	}
	w, err := sh.s.Perform(ctx, Text(strings.Join(lines, "\r")+"\r"))
	if err != nil {
		return RunResult{}, err
	}
	// The prompt must come after the input: a prompt still being drawn
	// when it went in (zsh's clearing of the line) changes the screen
	// with the old one last.
	var raw string
	exited := false
	for seq := w.Sequence; ; {
		res, err := sh.s.Wait(ctx, Any(TranscriptRegex(presetPromptRe.String()), ProcessExited()), After(seq))
		if err != nil {
			return RunResult{}, err
		}
		raw = sh.s.OutputSince(cursor, NoRedaction()).Text
		if res.Outcome.Matched[0].Kind == MatchProcessExited {
			exited = true
			break
		}
		if presetPromptRe.MatchString(raw) {
			break
		}
		seq = res.Sequence
	}
	var out RunResult
	if i := strings.LastIndex(raw, presetEnd); i >= 0 && !exited {
		status, _, _ := strings.Cut(raw[i+len(presetEnd):], "\a")
		out.Status, _ = strconv.Atoi(status) // The regex matched digits.
		raw = raw[:i]
	} else {
		out.Exited = true
		if st, ok := sh.s.ExitStatus(); ok {
			out.Status = st.Code
		}
	}
	out.Output = sh.s.redactor(nil).Redact(commandOutput(raw, len(lines)))
	return out, nil
}

// commandOutput is the output in raw, the transcript from the input to
// the next prompt, after the echo of the n lines typed: from bash's start
// marker, or after the n-th line end once continuation prompts (which
// come between the lines' echoes, or after them all for a shell that lets
// the terminal echo) are taken out.
func commandOutput(raw string, n int) string {
	if i := strings.Index(raw, presetStart); i >= 0 {
		raw = raw[i+len(presetStart):]
	} else {
		for _, p := range []string{shellPrompt2, pythonPrompt2} {
			raw = strings.ReplaceAll(raw, presetCont+p, "")
		}
		raw = ansi.Strip(raw)
		for range n {
			i := strings.IndexByte(raw, '\n')
			if i < 0 {
				return ""
			}
			raw = raw[i+1:]
		}
	}
	text := ansi.Strip(raw)
	for strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	return strings.TrimRight(text, "\r")
}
