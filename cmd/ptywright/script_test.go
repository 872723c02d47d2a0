package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runCLI runs a command line in this process, as main does: the client
// commands talk to the server's socket all the same, without the cost of
// starting the binary.
func runCLI(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := cli(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// Each adapter subcommand's --help lists its flags, as TestHelpListsEveryFlag
// checks the commands'.
func TestAdapterHelpListsEveryFlag(t *testing.T) {
	for _, c := range adapterCommands() {
		res := runCLI(append(strings.Fields(c.name), "--help")...)
		require.Equal(t, 0, res.code, res.stderr)
		require.True(t, strings.HasPrefix(res.stdout, "Usage: ptywright "+c.name+" "), res.stdout)
		for _, name := range flagNames(c) {
			require.Contains(t, res.stdout, "  --"+name, c.name)
		}
	}
	res := runCLI("adapter", "--help")
	require.Equal(t, 0, res.code, res.stderr)
	for _, sub := range []string{"start", "send", "turn", "state", "close"} {
		require.Contains(t, res.stdout, "  adapter "+sub+" ")
	}
}

// Command lines the client commands cannot act on exit 2 before any
// connection, with the command's usage hint.
func TestScriptClientUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"adapter"}, "ptywright adapter: subcommand required"},
		{[]string{"adapter", "bogus"}, `unknown subcommand "bogus"`},
		{[]string{"adapter", "start"}, "ptywright adapter start: plugin name required"},
		{[]string{"adapter", "send", "e1"}, "adapter ID and INTENT required"},
		{[]string{"adapter", "send", "e1", "x", "--params", "[1]"}, "--params: want a JSON object"},
		{[]string{"adapter", "turn", "e1", "x", "--param", "novalue"}, "want KEY=VALUE"},
		{[]string{"adapter", "state"}, "adapter ID required"},
		{[]string{"start", "--env", "=x", "--", "true"}, "want KEY=VALUE"},
		{[]string{"wait", "s1", "--exited", "--stable", "1s"}, "--exited and --stable are mutually exclusive"},
		{[]string{"wait", "s1", "--text", "x", "--timeout", "-1s"}, "--timeout must not be negative"},
		{[]string{"snapshot", "s1", "--json", "--svg"}, "--json and --svg are mutually exclusive"},
		{[]string{"snapshot", "s1", "s2"}, `unexpected argument "s2"`},
		{[]string{"close", "s1", "s2"}, `unexpected argument "s2"`},
	} {
		res := runCLI(tc.args...)
		require.Equal(t, exitUsage, res.code, "%v: %s", tc.args, res.stderr)
		require.Contains(t, res.stderr, tc.want, "%v", tc.args)
		require.Contains(t, res.stderr, "--help' for usage", "%v", tc.args)
		require.Empty(t, res.stdout, "%v", tc.args)
	}
}
