//go:build unix

package ptywright_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fence is a fenced code block of README.md.
type fence struct {
	lang, section, body string
	line                int
}

// readmeFences returns README.md's fenced code blocks with the ## section
// each is in.
func readmeFences(t *testing.T) []fence {
	t.Helper()
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var (
		out     []fence
		section string
		cur     *fence
	)
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += l + "\n"
		case strings.HasPrefix(l, "```"):
			cur = &fence{lang: strings.TrimPrefix(l, "```"), section: section, line: i + 1}
		case strings.HasPrefix(l, "## "):
			section = strings.TrimPrefix(l, "## ")
		}
	}
	require.Nil(t, cur, "README.md ends inside a code block")
	return out
}

// TestReadmeExamples compiles every Go example of README.md in a module
// of its own (as a user's module uses ptywright), runs the programs and
// the tests among them, and runs every shell example with the ptywright
// command on PATH: none of them may fail. The set-up commands are the
// whole suite's (this test among them) and are left out.
func TestReadmeExamples(t *testing.T) {
	dir, gocmd := scratchModule(t)
	var mains, tests []string
	var shells []fence
	for _, f := range readmeFences(t) {
		switch {
		case f.lang == "go":
			pkg := fmt.Sprintf("ex%d", f.line)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o700))
			name := "example.go"
			switch {
			case strings.HasPrefix(f.body, "package main\n"):
				mains = append(mains, pkg)
			case strings.Contains(strings.SplitN(f.body, "\n", 2)[0], "_test"):
				name = "example_test.go"
				tests = append(tests, pkg)
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, name), []byte(f.body), 0o600))
		case f.lang == "sh" && f.section != "Set up":
			shells = append(shells, f)
		}
	}
	require.NotEmpty(t, mains, "README.md shows a Go program")
	require.NotEmpty(t, tests, "README.md shows a Go test")
	require.NotEmpty(t, shells, "README.md shows shell examples")
	gocmd("mod", "tidy")
	gocmd("vet", "./...")
	for _, pkg := range mains {
		t.Run(pkg, func(t *testing.T) {
			out := gocmd("run", "./"+pkg)
			t.Logf("%s", out)
		})
	}
	for _, pkg := range tests {
		t.Run(pkg, func(t *testing.T) { gocmd("test", "-count=1", "./"+pkg) })
	}

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "ptywright"), "./cmd/ptywright")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, f := range shells {
		t.Run(fmt.Sprintf("sh line %d", f.line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", f.body)
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "README.md line %d:\n%s\n%s", f.line, f.body, out)
		})
	}
}
