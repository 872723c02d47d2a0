// Package launch resolves and checks what a session is asked to run, the
// same way for ptywright.Start and for the checks a server makes before a
// start it cannot take back (adapter.resume closes the prior adapter first).
package launch

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Resolve returns the path the program is started from: a name without a
// slash is looked up in PATH; a relative path is taken from dir, the
// directory the program runs in, as os/exec does (made absolute, so that
// it names the same file before and after the child changes into dir).
// The file must be an executable regular file. Errors are *exec.Error.
func Resolve(program, dir string) (string, error) {
	if filepath.Base(program) == program {
		return exec.LookPath(program)
	}
	path := program
	if !filepath.IsAbs(path) && dir != "" {
		abs, err := filepath.Abs(filepath.Join(dir, path))
		if err != nil {
			return "", &exec.Error{Name: program, Err: err}
		}
		path = abs
	}
	if _, err := exec.LookPath(path); err != nil {
		return "", &exec.Error{Name: program, Err: unwrapExec(err)}
	}
	return path, nil
}

// unwrapExec returns the cause of an *exec.Error, so the error names the
// program as the caller wrote it.
func unwrapExec(err error) error {
	if ee, ok := err.(*exec.Error); ok {
		return ee.Err
	}
	return err
}

// CheckStrings refuses what execve(2) cannot pass: a NUL byte in the
// program, an argument or an environment entry ends the C string early
// (the OS refuses it with EINVAL). field names the offending parameter.
func CheckStrings(program string, args []string, env map[string]string) (field string, err error) {
	if strings.IndexByte(program, 0) >= 0 {
		return "program", nulError("the program")
	}
	for i, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return "args", nulError(fmt.Sprintf("argument %d", i))
		}
	}
	for k, v := range env {
		if strings.IndexByte(k, 0) >= 0 || strings.IndexByte(v, 0) >= 0 {
			return "env", nulError(fmt.Sprintf("variable %q", strings.ReplaceAll(k, "\x00", `\x00`)))
		}
	}
	return "", nil
}

func nulError(what string) error {
	return fmt.Errorf("%s contains a NUL byte, which no program can be passed: %w", what, syscall.EINVAL)
}
