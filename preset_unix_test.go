//go:build unix

package ptywright_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"ptywright"
)

// runCase is one command and what Run must return for it.
type runCase struct {
	cmd    string
	output string
	status int
}

// shellCases are commands every shell preset runs alike: true, false,
// exit statuses, no output, output without a final newline, several
// lines, a command of several lines, one longer than a row.
func shellCases(i int) []runCase {
	long := strings.Repeat("y", 90)
	return []runCase{
		{"true", "", 0},
		{"false", "", 1},
		{fmt.Sprintf("echo out%d", i), fmt.Sprintf("out%d\n", i), 0},
		{fmt.Sprintf("(exit %d)", i%7+2), "", i%7 + 2},
		{"printf 'a\\nb\\nc\\n'", "a\nb\nc\n", 0},
		{"printf 'no newline'", "no newline", 0},
		{"for x in 1 2 3; do\necho line$x\ndone", "line1\nline2\nline3\n", 0},
		{"echo " + long + "; false", long + "\n", 1},
		{"echo err >&2; (exit 3)", "err\n", 3},
		{"echo one\necho two\nfalse", "one\ntwo\n", 1},
		{"false\nx=" + fmt.Sprint(i) + "\necho $x", fmt.Sprintf("%d\n", i), 0},
	}
}

func pythonCases(i int) []runCase {
	return []runCase{
		{fmt.Sprintf("print('out%d')", i), fmt.Sprintf("out%d\n", i), 0},
		{fmt.Sprintf("%d + 1", i), fmt.Sprintf("%d\n", i+1), 0},
		{"x = 5", "", 0},
		{"for k in range(3):\n    print('line', k)", "line 0\nline 1\nline 2\n", 0},
		{"1/0", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nZeroDivisionError: division by zero\n", 1},
		{"print('a\\nb')", "a\nb\n", 0},
	}
}

// Each preset runs 100 mixed commands: Run returns exactly what each
// wrote, without the echo of the command or the next prompt, and its
// status.
func TestShellRunReturnsOutputAndStatus(t *testing.T) {
	for _, p := range []ptywright.Preset{ptywright.PresetBash, ptywright.PresetSh, ptywright.PresetZsh, ptywright.PresetPython} {
		t.Run(string(p), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			sh, err := ptywright.StartShell(ctx, p, ptywright.Options{})
			require.NoError(t, err)
			defer func() { require.NoError(t, sh.Close()) }()
			cases := shellCases
			if p == ptywright.PresetPython {
				cases = pythonCases
			}
			runs := 0
			for i := 0; runs < 100; i++ {
				for _, c := range cases(i) {
					if runs == 100 {
						break
					}
					res, err := sh.Run(ctx, c.cmd)
					require.NoError(t, err, "run %d: %q", runs, c.cmd)
					require.Equal(t, c.output, res.Output, "run %d: %q", runs, c.cmd)
					require.Equal(t, c.status, res.Status, "run %d: %q", runs, c.cmd)
					require.False(t, res.Exited)
					runs++
				}
			}
			res, err := sh.Run(ctx, map[bool]string{true: "raise SystemExit(4)", false: "exit 4"}[p == ptywright.PresetPython])
			require.NoError(t, err)
			require.True(t, res.Exited)
			require.Equal(t, 4, res.Status)
		})
	}
}

func TestPresetUnknownOrMissing(t *testing.T) {
	_, err := ptywright.Preset("fish").Options(ptywright.Options{})
	require.ErrorIs(t, err, ptywright.ErrPresetUnavailable)
	require.ErrorContains(t, err, "presets: bash, sh, zsh, python")
	t.Setenv("PATH", t.TempDir())
	for _, p := range ptywright.Presets() {
		_, err = p.Options(ptywright.Options{})
		require.ErrorIs(t, err, ptywright.ErrPresetUnavailable)
		require.ErrorContains(t, err, "is not installed")
		_, err = ptywright.StartShell(context.Background(), p, ptywright.Options{})
		require.ErrorIs(t, err, ptywright.ErrPresetUnavailable)
	}
}
