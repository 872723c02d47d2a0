// Package tuitest holds what the tests of real TUIs share: finding the
// repository, the installed Claude Code, Codex and Gemini CLIs, and the
// goroutine leak check. Tests only; nothing in the library imports it.
package tuitest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// RepoRoot is the directory of ptywright's go.mod, found by walking up from
// the working directory (a test's package directory), so every package
// finds .cache/tuis and testdata the same way.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("tuitest: %v", err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module ptywright\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("tuitest: no ptywright go.mod above the working directory")
		}
		dir = parent
	}
}

// TUIDir is where scripts/install-tuis.sh installs the real CLIs:
// $PTYWRIGHT_TUI_DIR, else .cache/tuis in the repository.
func TUIDir(tb testing.TB) string {
	tb.Helper()
	if dir := os.Getenv("PTYWRIGHT_TUI_DIR"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			tb.Fatalf("tuitest: %v", err)
		}
		return abs
	}
	return filepath.Join(RepoRoot(tb), ".cache", "tuis")
}

const claudeInstallHint = "install it with `bash scripts/install-tuis.sh` (puts Claude Code 2.1.330 in .cache/tuis), or point PTYWRIGHT_CLAUDE_BIN at a claude binary"

// ClaudeBinary finds the real Claude Code CLI: $PTYWRIGHT_CLAUDE_BIN, else
// the one scripts/install-tuis.sh installs. A missing CLI fails the test
// when CI is set and skips it otherwise, saying how to install it.
func ClaudeBinary(tb testing.TB) string {
	tb.Helper()
	return require(tb, ClaudePath(tb), "Claude Code", claudeInstallHint)
}

// ClaudePath is where the Claude Code CLI should be, installed or not:
// $PTYWRIGHT_CLAUDE_BIN, else the one scripts/install-tuis.sh installs.
func ClaudePath(tb testing.TB) string {
	tb.Helper()
	if bin := os.Getenv("PTYWRIGHT_CLAUDE_BIN"); bin != "" {
		return bin
	}
	return filepath.Join(TUIDir(tb), "node_modules", ".bin", "claude")
}

const codexInstallHint = "run `bash scripts/install-codex.sh` or set PTYWRIGHT_CODEX_BIN"

// CodexBinary finds the real Codex CLI: $PTYWRIGHT_CODEX_BIN, else the
// repository's .cache/tuis install. Missing, it fails the test under CI
// and skips it elsewhere, naming the install command either way.
func CodexBinary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("PTYWRIGHT_CODEX_BIN")
	if bin == "" {
		bin = filepath.Join(TUIDir(tb), "node_modules", ".bin", "codex")
	}
	return require(tb, bin, "the Codex CLI", codexInstallHint)
}

const geminiInstallHint = "install it with `bash scripts/install-tuis.sh` (puts the Gemini CLI 0.61.0 in .cache/tuis), or point PTYWRIGHT_GEMINI_BIN at a gemini binary"

// GeminiBinary finds the real Gemini CLI: $PTYWRIGHT_GEMINI_BIN, else the
// one scripts/install-tuis.sh installs. Missing, it fails the test under
// CI and skips it elsewhere, naming the install command either way.
func GeminiBinary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("PTYWRIGHT_GEMINI_BIN")
	if bin == "" {
		bin = filepath.Join(TUIDir(tb), "node_modules", ".bin", "gemini")
	}
	return require(tb, bin, "the Gemini CLI", geminiInstallHint)
}

// require returns bin as an absolute path, failing under CI (env CI set)
// and skipping elsewhere when it does not exist.
func require(tb testing.TB, bin, what, hint string) string {
	tb.Helper()
	abs, err := filepath.Abs(bin)
	if err != nil {
		tb.Fatalf("tuitest: %v", err)
	}
	if _, err := os.Stat(abs); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s not found at %s (%v); CI must run this test: %s", what, abs, err, hint)
		}
		tb.Skipf("%s not found at %s; %s", what, abs, hint)
	}
	return abs
}

// Leaked waits up to d for goroutines running ptywright library code (any
// package of the module) to end and returns the stacks of those still
// alive ("" when none are). Test goroutines (package names ending in
// _test) are not counted.
func Leaked(d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if runsOurCode(g) && !strings.Contains(g, "_test.") &&
				!strings.Contains(g, "testing.tRunner") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runsOurCode reports whether a goroutine's stack has a frame of the
// module's code other than this package's.
func runsOurCode(stack string) bool {
	for line := range strings.Lines(stack) {
		if (strings.HasPrefix(line, "ptywright.") || strings.HasPrefix(line, "ptywright/")) &&
			!strings.HasPrefix(line, "ptywright/internal/tuitest.") {
			return true
		}
	}
	return false
}

// Main runs a package's tests and then fails the run if library goroutines
// outlive them: call it from TestMain.
func Main(m *testing.M) { MainAfter(m) }

// MainAfter is Main that runs after (closing what the package's tests
// shared, such as one plugin registry) once the tests are done and before
// it looks for leaked goroutines.
func MainAfter(m *testing.M, after ...func()) {
	code := m.Run()
	for _, f := range after {
		f()
	}
	if code == 0 {
		if leaked := Leaked(2 * time.Second); leaked != "" {
			os.Stderr.WriteString("goroutines leaked by ptywright:\n" + leaked + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
