// Package launch resolves the program a session is asked to run, the same
// way for ptywright.Start and for the checks a server makes before a start
// it cannot take back (adapter.resume closes the prior adapter first).
package launch

import (
	"os/exec"
	"path/filepath"
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
