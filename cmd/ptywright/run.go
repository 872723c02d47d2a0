package main

import (
	"context"
	"flag"
	"io"

	"ptywright"
)

const runSynopsis = "run [--rows N] [--cols N] [--record FILE] -- CMD [ARGS...]"

const runDetails = `Runs CMD on a new pseudo-terminal and passes it through live: its output
goes to stdout as it arrives, and stdin goes to it.

When stdin is a terminal it is put in raw mode until run exits, so every
key reaches CMD as typed; replies the real terminal sends on its own
(focus events, device attribute, cursor position, mode and colour reports)
are dropped, since run's own screen already answers CMD's queries. When
stdin is not a terminal, its end is passed on as one EOF (Ctrl-D) and run
keeps waiting for CMD.

The size is --rows/--cols, else stdout's terminal size (followed as the
terminal is resized), else 24x80. SIGINT, SIGTERM, SIGHUP and SIGQUIT are
forwarded to CMD's process group; a second one ends CMD (SIGTERM, then
SIGKILL).

--record FILE records the session as an asciicast v2 file (mode 0600; an
existing file is refused) that asciinema plays back; secrets in it are
redacted.

Exits with CMD's exit code, or 128+N when signal N killed it; with 2 for a
usage error and 1 for any other failure (CMD cannot be started).
`

// runConfig is a validated `run` command line.
type runConfig struct {
	// Rows and Cols fix the terminal size; 0 follows the real terminal, or
	// the default 24x80 without one.
	Rows, Cols int
	// Record, when set, is the asciicast file the session is recorded to.
	Record string
	// Program and Args are the command to run.
	Program string
	Args    []string
}

func runFlags(cfg *runConfig) *flag.FlagSet {
	fs := newFlagSet("run")
	fs.IntVar(&cfg.Rows, "rows", 0, "terminal height of `N` rows; default: the terminal's, else 24")
	fs.IntVar(&cfg.Cols, "cols", 0, "terminal width of `N` columns; default: the terminal's, else 80")
	fs.StringVar(&cfg.Record, "record", "", "record the session as an asciicast v2 `FILE` (redacted; never overwritten)")
	return fs
}

// parseRun parses and validates the run command line; help is true when
// --help was printed instead.
func parseRun(args []string, stdout io.Writer) (cfg runConfig, help bool, err error) {
	fs := runFlags(&cfg)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return runConfig{}, help, err
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "record" {
			if bad == nil && cfg.Record == "" {
				bad = usagef("run", "--record: file must not be empty")
			}
			return
		}
		v := cfg.Rows
		if f.Name == "cols" {
			v = cfg.Cols
		}
		if bad == nil && (v < 1 || v > ptywright.MaxSizeCells) {
			bad = usagef("run", "--%s: must be between 1 and %d, got %d", f.Name, ptywright.MaxSizeCells, v)
		}
	})
	if bad != nil {
		return runConfig{}, false, bad
	}
	if fs.NArg() == 0 {
		return runConfig{}, false, usagef("run", "no command given (ptywright %s)", runSynopsis)
	}
	if fs.Arg(0) == "" {
		return runConfig{}, false, usagef("run", "command must not be empty")
	}
	cfg.Program, cfg.Args = fs.Arg(0), fs.Args()[1:]
	return cfg, false, nil
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cfg, help, err := parseRun(args, stdout)
	if help || err != nil {
		return exitOK, err
	}
	return runPassthrough(ctx, cfg, stdin, stdout, stderr)
}
