package ptywright_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
	"ptywright/internal/tuitest"
)

// childModeEnv makes the test binary act as a small child program, so tests
// and benchmarks need no separately built helper.
const childModeEnv = "PTYWRIGHT_TEST_CHILD"

// runChild is the child's main. "stamp": for every input line N, print
// "M<N> T=<unix nanoseconds>" so the parent can measure output latency
// against the moment the child wrote. "sessions" and "scale" hold
// sessions of their own (child_sessions_test.go, scale_child_test.go).
func runChild(mode string) int {
	switch mode {
	case "stamp":
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Printf("M%s T=%d\r\n", strings.TrimSpace(in.Text()), time.Now().UnixNano())
		}
		return 0
	case "bursts":
		writeBursts(burstsOutput())
		return 0
	case "sessions":
		return runSessionsChild()
	case "scale":
		return runScaleChild()
	case "nofile":
		return runNofileChild()
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

// startChild runs this test binary in child mode on a PTY with echo off.
func startChild(t testing.TB, mode string) *ptywright.Session {
	t.Helper()
	return startChildOutput(t, mode, nil)
}

// startChildOutput is startChild with output as the session's Output tap.
func startChildOutput(t testing.TB, mode string, output io.Writer) *ptywright.Session {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	s := start(t, ptywright.Options{
		Program: "/bin/sh",
		Args:    tuitest.StampShellArgs(exe),
		Env:     map[string]string{childModeEnv: mode},
		Output:  output,
	})
	waitFor(t, s, ptywright.ContainsText("started"))
	return s
}
