package ptywrighttest

import (
	"context"
	"errors"
	"testing"

	"ptywright"
)

// StartShell starts a preset's program (ptywright.Preset.Options: bash,
// sh, zsh or python3 with a prompt ptywright knows) for the length of the
// test, as Start does, and waits for its first prompt. A preset whose
// program is not installed fails the test, saying so.
func StartShell(tb testing.TB, p ptywright.Preset, opts ptywright.Options) *ptywright.Shell {
	tb.Helper()
	opts, err := p.Options(opts)
	if err != nil {
		tb.Fatalf("ptywrighttest: %v", err)
	}
	sh := ptywright.NewShell(Start(tb, opts), p)
	ExpectPrompt(tb, sh)
	return sh
}

// Run runs cmd at the shell's prompt (ptywright.Shell.Run) and returns
// what it wrote, without its echo and the next prompt, and its status. The
// test fails if the prompt does not come back within DefaultTimeout, with
// the screen and the output tail.
func Run(tb testing.TB, sh *ptywright.Shell, cmd string) ptywright.RunResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	res, err := sh.Run(ctx, cmd)
	if err != nil {
		tb.Fatalf("ptywrighttest: run %q: %s", cmd, failure(sh.Session(), err))
	}
	return res
}

// ExpectPrompt waits until the shell is back at its prompt
// (ptywright.Shell.WaitPrompt) and returns the evidence; Outcome.Capture is
// the status the prompt carries.
func ExpectPrompt(tb testing.TB, sh *ptywright.Shell) *ptywright.WaitResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	res, err := sh.WaitPrompt(ctx)
	if err != nil {
		tb.Fatalf("ptywrighttest: expect the %s prompt: %s", sh.Preset(), failure(sh.Session(), err))
	}
	return res
}

// failure describes a failed shell call as expectFailure does a failed
// Expect, with the matcher of the wait that gave up.
func failure(s *ptywright.Session, err error) string {
	var we *ptywright.WaitError
	if !errors.As(err, &we) {
		return err.Error()
	}
	return expectFailure(s, we.Matcher, err)
}
