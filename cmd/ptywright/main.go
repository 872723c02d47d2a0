// Command ptywright runs terminal programs on a pseudo-terminal.
//
//	ptywright run [--rows N] [--cols N] [--record FILE] -- CMD ARGS...
//	ptywright serve [--stdio | --socket PATH] [--framing ndjson|lsp] [--plugin MANIFEST]... [--allow-plugin-load] [--engine vtcore|xvt]
//	ptywright mcp [--plugin MANIFEST]...
//	ptywright snapshot [--socket PATH] (ID [--json] | --session ID | --adapter ID) [--svg | --cells]
//	ptywright start [--socket PATH] [--rows N] [--cols N] [--env K=V]... -- PROGRAM ARGS...
//	ptywright send [--socket PATH] ID (--text TEXT | --key NAME | --paste TEXT)...
//	ptywright wait [--socket PATH] ID (--text TEXT | --regex RE | --exited) [--stable D] [--after SEQ] [--timeout D]
//	ptywright list [--socket PATH]
//	ptywright close [--socket PATH] ID
//	ptywright attach [--socket PATH] [--control] [--detach-key KEY] ID
//	ptywright adapter start|send|turn|state|close [--socket PATH] ...
//	ptywright completions bash|zsh|fish
//	ptywright version
//
// Exit codes: 2 for a usage error, 1 for a runtime error; run exits with
// the child's code (128+N when signal N killed it). The script client
// commands (start, send, wait, list, close, snapshot ID, adapter) exit 1
// for a timeout or no match and 2 for every other error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const mainUsage = `Usage: ptywright <command> [flags] [args]

Drives interactive terminal programs through a real pseudo-terminal.

Commands:
  run          run a command on a PTY, passing its terminal through live
  serve        serve the JSON-RPC automation API
  mcp          serve the Model Context Protocol over stdio, for agent clients
  snapshot     print a served session's screen as text, JSON or SVG
  completions  print a shell completion script (bash, zsh, fish)
  version      print the version

Commands that script a running "ptywright serve" (exit 0 done, 1 timeout
or no match, 2 any other error):
  start        start a program on a served session and print its id
  send         type text and keys into a served session
  wait         wait until a served session's screen shows a text or a match
  list         list a server's sessions
  close        close a served session
  attach       show a served session live in this terminal; --control types into it
  adapter      drive a served TUI through a plugin (start, send, turn, state, close)

Flags:
  -h, --help   show this help; "ptywright <command> --help" for a command
  --version    print the version

Exit codes: 2 for a usage error, 1 for a runtime error; run exits with
the child's exit code.
`

func main() {
	os.Exit(cli(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli runs one command line and returns the process exit code.
func cli(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	var err error
	code := exitOK
	switch name {
	case "-h", "-help", "--help", "help":
		return helpCommand(rest, stdout, stderr)
	case "-version", "--version":
		if len(rest) > 0 {
			err = usagef("", "--version takes no arguments")
			break
		}
		fmt.Fprintln(stdout, versionString())
	case "version":
		err = versionCommand(rest, stdout)
	case "run":
		code, err = runCommand(ctx, rest, stdin, stdout, stderr)
	case "serve":
		err = serveCommand(ctx, rest, stdin, stdout, stderr)
	case "mcp":
		err = mcpCommand(ctx, rest, stdin, stdout, stderr)
	case "snapshot":
		err = snapshotCommand(ctx, rest, stdout, stderr)
	case "start":
		err = startCommand(ctx, rest, stdout, stderr)
	case "send":
		err = sendCommand(ctx, rest, stdout, stderr)
	case "wait":
		err = waitCommand(ctx, rest, stdout, stderr)
	case "list":
		err = listCommand(ctx, rest, stdout, stderr)
	case "close":
		err = closeCommand(ctx, rest, stdout, stderr)
	case "attach":
		err = attachCommand(ctx, rest, stdin, stdout, stderr)
	case "adapter":
		err = adapterCommand(ctx, rest, stdout, stderr)
	case "completions":
		err = completionsCommand(rest, stdout)
	default:
		err = usagef("", "unknown command %q", name)
	}
	if err != nil {
		return report(err, stderr)
	}
	return code
}

// report prints err and returns its exit code.
func report(err error, stderr io.Writer) int {
	var ue *usageError
	if errors.As(err, &ue) {
		if ue.cmd == "" {
			fmt.Fprintf(stderr, "ptywright: %s\nRun 'ptywright --help' for usage.\n", ue.msg)
		} else {
			fmt.Fprintf(stderr, "ptywright %s: %s\nRun 'ptywright %s --help' for usage.\n", ue.cmd, ue.msg, ue.cmd)
		}
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if errors.Is(ee, errQuiet) {
			return ee.code
		}
		fmt.Fprintf(stderr, "ptywright %s\n", redactText(withoutInnerPrefix(ee.Error())))
		return ee.code
	}
	// Diagnostics are redacted like everything else that leaves: an error
	// may quote a command line or a path holding a secret.
	fmt.Fprintf(stderr, "ptywright: %s\n", redactText(withoutInnerPrefix(err.Error())))
	return exitFailure
}

// withoutInnerPrefix drops the "ptywright: " the library's errors start
// with where the message goes on after a colon: report prints it once, in
// front ("ptywright: run: start: ...", not "ptywright: run: ptywright:
// start: ...").
func withoutInnerPrefix(msg string) string {
	return strings.ReplaceAll(msg, ": ptywright: ", ": ")
}

// usageError is a command line the program cannot act on: exit code 2.
type usageError struct {
	cmd string // the subcommand, "" for the top level
	msg string
}

func (e *usageError) Error() string {
	if e.cmd == "" {
		return e.msg
	}
	return e.cmd + ": " + e.msg
}

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// command describes a subcommand for help and completions.
type command struct {
	name    string
	summary string
	usage   string // the synopsis after "Usage: "
	details string // paragraphs after the summary, if any
	flags   func() *flag.FlagSet
}

// commands lists the subcommands in the order help shows them. Their flag
// sets are built by the same functions the commands parse with, so help and
// completions cannot drift from what is accepted.
func commands() []command {
	return []command{
		{"run", "run a command on a PTY, passing its terminal through live", runSynopsis, runDetails, func() *flag.FlagSet { return runFlags(new(runConfig)) }},
		{"serve", "serve the JSON-RPC automation API", serveSynopsis, serveDetails, func() *flag.FlagSet { return serveFlags(new(serveConfig)) }},
		{"mcp", "serve the Model Context Protocol over stdio, for agent clients", mcpSynopsis, mcpDetails, func() *flag.FlagSet { return mcpFlags(new(mcpConfig)) }},
		{"snapshot", "print a served session's screen as text, JSON or SVG", snapshotSynopsis, snapshotDetails, func() *flag.FlagSet { return snapshotFlags(new(snapshotConfig)) }},
		{"start", "start a program on a served session and print its id", startSynopsis, startDetails, func() *flag.FlagSet { return startFlags(new(startConfig)) }},
		{"send", "type text and keys into a served session", sendSynopsis, sendDetails, func() *flag.FlagSet { return sendFlags(new(sendConfig)) }},
		{"wait", "wait until a served session's screen shows a text or a match", waitSynopsis, waitDetails, func() *flag.FlagSet { return waitFlags(new(waitConfig)) }},
		{"list", "list a server's sessions", listSynopsis, listDetails, func() *flag.FlagSet { return listFlags(new(clientFlags)) }},
		{"close", "close a served session", closeSynopsis, closeDetails, func() *flag.FlagSet { return closeFlags(new(clientFlags)) }},
		{"attach", "show a served session live in this terminal; --control types into it", attachSynopsis, attachDetails, func() *flag.FlagSet { return attachFlags(new(attachConfig)) }},
		{"adapter", "drive a served TUI through a plugin", adapterSynopsis, adapterDetails, func() *flag.FlagSet { return clientOnlyFlags("adapter", new(clientFlags)) }},
		{"completions", "print a shell completion script", completionsSynopsis, completionsDetails, func() *flag.FlagSet { return newFlagSet("completions") }},
		{"version", "print the version", "version", "", func() *flag.FlagSet { return newFlagSet("version") }},
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range append(commands(), adapterCommands()...) {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// helpCommand prints the top-level help, or a command's with "help CMD".
func helpCommand(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		fmt.Fprint(stdout, mainUsage)
		return exitOK
	case 1:
		c, ok := lookupCommand(args[0])
		if !ok {
			return report(usagef("", "unknown command %q", args[0]), stderr)
		}
		printUsage(stdout, c)
		return exitOK
	}
	return report(usagef("", "help takes at most one command"), stderr)
}

// newFlagSet returns a flag set that reports errors instead of printing or
// exiting, so the caller decides the stream and the exit code.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args for the named command. --help prints the command's
// usage to stdout and reports help=true; bad flags are usage errors.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c, _ := lookupCommand(fs.Name())
			printUsage(stdout, c)
			return true, nil
		}
		return false, usagef(fs.Name(), "%v", err)
	}
	return false, nil
}

// printUsage writes a command's synopsis, summary and flags.
func printUsage(w io.Writer, c command) {
	fmt.Fprintf(w, "Usage: ptywright %s\n\n%s.\n", c.usage, capitalize(c.summary))
	if c.details != "" {
		fmt.Fprintf(w, "\n%s", c.details)
	}
	fs := c.flags()
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  --%s", f.Name)
		if arg != "" {
			fmt.Fprintf(&b, " %s", arg)
		}
		fmt.Fprintf(&b, "\n    \t%s\n", strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
	b.WriteString("  -h, --help\n    \tshow this help\n")
	fmt.Fprintf(w, "\nFlags:\n%s", b.String())
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
