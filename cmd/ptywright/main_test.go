package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pwBin is the ptywright binary built once for the whole package.
var pwBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ptywright-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	pwBin = filepath.Join(dir, "ptywright")
	if runtime.GOOS == "windows" {
		pwBin += ".exe"
	}
	if err := buildBinary(pwBin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if raceEnabled {
		// A race binary sleeps a second before a clean exit so that late
		// reports get out; a tenth of that does, and saves the suite
		// about a second per run of the binary. Options already in GORACE
		// come last and win.
		os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=100 "+os.Getenv("GORACE")))
	}
	return m.Run()
}

// buildBinary builds this package, with the race detector when the tests
// run with it, so the binary's goroutines are checked too.
func buildBinary(out string, extra ...string) error {
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, extra...)
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	// go build has been seen to leave the output mode 0644 when another
	// build of this package runs at the same time.
	return os.Chmod(out, 0o755)
}

// result is how one run of the binary ended.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the binary to completion. The timeout only keeps a broken
// build from hanging the suite.
func runBinary(tb testing.TB, stdin io.Reader, args ...string) result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pwBin, args...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	default:
		tb.Fatalf("run %v: %v", args, err)
	}
	require.NoError(tb, ctx.Err(), "ptywright %v hung; stdout %q stderr %q", args, res.stdout, res.stderr)
	return res
}

func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Usage: ptywright <command>"},
		{[]string{"-h"}, "Usage: ptywright <command>"},
		{[]string{"help"}, "Usage: ptywright <command>"},
		{[]string{"run", "--help"}, "Usage: ptywright run [--rows N] [--cols N] [--record FILE] -- CMD [ARGS...]"},
		{[]string{"run", "-h"}, "Usage: ptywright run "},
		{[]string{"help", "run"}, "Usage: ptywright run "},
		{[]string{"serve", "--help"}, "Usage: ptywright serve [--stdio | --socket PATH] [--framing ndjson|lsp] [--plugin MANIFEST]... [--allow-plugin-load] [--engine vtcore|xvt] [--max-sessions N] [--max-memory BYTES] [--max-cells N] [--log-level LEVEL]"},
		{[]string{"completions", "--help"}, "Usage: ptywright completions bash|zsh|fish"},
		{[]string{"version", "--help"}, "Usage: ptywright version"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := runBinary(t, nil, tc.args...)
			require.Equal(t, 0, res.code, res.stderr)
			require.Empty(t, res.stderr)
			require.True(t, strings.HasPrefix(res.stdout, tc.want), "stdout:\n%s", res.stdout)
		})
	}
}

func TestHelpListsEveryFlag(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			res := runBinary(t, nil, c.name, "--help")
			require.Equal(t, 0, res.code, res.stderr)
			for _, name := range flagNames(c) {
				require.Contains(t, res.stdout, "  --"+name)
			}
			require.Contains(t, res.stdout, "--help")
		})
	}
}

// flagNames lists the flags a command accepts.
func flagNames(c command) []string {
	var names []string
	c.flags().VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Usage: ptywright <command>"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"--bogus"}, `unknown command "--bogus"`},
		{[]string{"help", "bogus"}, `unknown command "bogus"`},
		{[]string{"--version", "x"}, "--version takes no arguments"},
		{[]string{"version", "x"}, `ptywright version: unexpected argument "x"`},
		{[]string{"run"}, "ptywright run: no command given"},
		{[]string{"run", "--"}, "ptywright run: no command given"},
		{[]string{"run", "--rows", "5"}, "ptywright run: no command given"},
		{[]string{"run", "--rows", "0", "--", "true"}, "--rows: must be between 1 and 10000, got 0"},
		{[]string{"run", "--cols", "10001", "--", "true"}, "--cols: must be between 1 and 10000, got 10001"},
		{[]string{"run", "--rows", "x", "--", "true"}, `invalid value "x" for flag -rows`},
		{[]string{"run", "--bogus", "--", "true"}, "flag provided but not defined: -bogus"},
		{[]string{"run", "--", ""}, "command must not be empty"},
		{[]string{"run", "--record", "", "--", "true"}, "--record: file must not be empty"},
		{[]string{"serve", "--stdio", "--socket", "/tmp/x.sock"}, "--stdio and --socket are mutually exclusive"},
		{[]string{"serve", "--socket", ""}, "--socket: path must not be empty"},
		{[]string{"serve", "--framing", "json"}, `invalid value "json" for flag -framing: must be ndjson or lsp`},
		{[]string{"serve", "--plugin", ""}, "manifest path must not be empty"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"completions"}, "shell required: one of bash, fish, zsh"},
		{[]string{"completions", "tcsh"}, `unknown shell "tcsh"`},
		{[]string{"completions", "bash", "zsh"}, `unexpected argument "zsh"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := runBinary(t, nil, tc.args...)
			require.Equal(t, exitUsage, res.code, "stderr: %s", res.stderr)
			require.Contains(t, res.stderr, tc.want)
			require.Empty(t, res.stdout)
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		res := runBinary(t, nil, args...)
		require.Equal(t, 0, res.code, res.stderr)
		// The commit is there only when the build stamps VCS information.
		require.Regexp(t, `^ptywright 0\.1\.0-dev \(module ptywright \S+, (commit [0-9a-f]+(\+dirty)?, )?go`, res.stdout)
		require.Contains(t, res.stdout, runtime.Version()+", "+runtime.GOOS+"/"+runtime.GOARCH+")\n")
	}
}

func TestVersionFromLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ptywright")
	require.NoError(t, buildBinary(bin, "-ldflags", "-X main.version=1.2.3"))
	out, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "ptywright 1.2.3 ("), "got %q", out)
}
