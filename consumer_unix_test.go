//go:build unix

package ptywright_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scratchModule makes a module of its own outside the repository that
// requires ptywright with nothing but "replace ptywright => <this
// repository>", as a user's module does, and returns its directory and a
// function that runs the go command in it.
func scratchModule(t *testing.T) (dir string, gocmd func(args ...string) string) {
	t.Helper()
	repo, err := filepath.Abs(".")
	require.NoError(t, err)
	dir = t.TempDir()
	mod := "module consumer\n\ngo 1.26\n\nrequire ptywright v0.0.0\n\nreplace ptywright => " + repo + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o600))
	// Our go.sum covers every module the consumer needs.
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o600))
	return dir, func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// -mod=mod lets go fill in the consumer's requirements from ours;
		// GOWORK=off keeps a workspace of the caller's out of it.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
}

// TestUseFromAnotherModule builds and runs a module of its own that uses
// every public package with one replace directive: nothing ptywright needs
// (the patched go-lua included) may depend on a replace directive of ours,
// which does not apply to importers.
func TestUseFromAnotherModule(t *testing.T) {
	dir, gocmd := scratchModule(t)
	src, err := os.ReadFile(filepath.Join("testdata", "consumer", "main.go.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), src, 0o600))
	gocmd("mod", "tidy")
	gocmd("vet", ".")
	out := gocmd("run", ".")
	for _, want := range []string{
		"session: consumer-42",
		"plugins: codex reads a shell as ",
		`luahost: "hello consumer"`,
		"rpc: true jsonrpc-2.0",
		"mcpserver: has session_start: true",
		"svg: true",
		"asciicast: 24 80",
		"contract: a b",
		"events: true",
	} {
		require.Contains(t, out, want)
	}
}
