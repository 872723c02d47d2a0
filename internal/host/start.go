package host

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"ptywright"
	"ptywright/manifest"
)

// ErrInvalidStart classifies the field errors of this file: the caller's
// start request is wrong. Each face maps it to its own "invalid params".
var ErrInvalidStart = errors.New("invalid start request")

func fieldError(field, format string, args ...any) error {
	return &ptywright.FieldError{Field: field, Reason: fmt.Sprintf(format, args...), Err: ErrInvalidStart}
}

// CheckDir checks a working directory before spawning, as a
// *ptywright.FieldError naming "cwd": exec reports a missing directory as a
// missing program ("fork/exec /bin/sh: no such file or directory").
func CheckDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fieldError("cwd", "%v", err)
	}
	if !fi.IsDir() {
		return fieldError("cwd", "%s is not a directory", dir)
	}
	return nil
}

// CheckAdapterKind refuses to start a plugin that is not an adapter, as a
// *ptywright.FieldError naming "plugin": a matcher or macro plugin has no
// classify, so a session driven by it could never report a state.
func CheckAdapterKind(m manifest.Manifest) error {
	if m.Kind != manifest.KindAdapter {
		return fieldError("plugin", "plugin %q is a %s plugin: only adapter plugins can be started (adapter.list lists them)", m.Name, m.Kind)
	}
	return nil
}

// CallerStartError says whether a failure of ptywright.Start is the
// caller's mistake (a program that is not there, is a directory, is not
// executable or not a format the system can run; a missing directory;
// args and env longer than the system takes) rather than the server's (no
// PTY, no memory). A field error from this package is the caller's too.
func CallerStartError(err error) bool {
	var ee *exec.Error // any failure to find the program
	return errors.As(err, &ee) || errors.Is(err, ErrInvalidStart) || errors.Is(err, syscall.E2BIG) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENOEXEC) ||
		errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENAMETOOLONG)
}

// Target is what a caller asks an adapter to start; Program "" means the
// manifest's default target.
type Target struct {
	Program    string
	Args       []string
	Dir        string
	Env        map[string]string
	Size       ptywright.Size
	RecordPath string
	RecordRaw  bool
	// KeepDetached leaves daemons the program detached running at close.
	KeepDetached bool
}

// TargetOptions builds the session options of an adapter start. Without a
// program the manifest's default_target supplies program, args, rows and
// cols (the caller's args, rows and cols win when given) and its env, under
// the caller's env; the variables it requires must then be set, in the
// merged env or this process's environment. The result passes CheckStrings.
// Errors are *ptywright.FieldError naming the field.
func TargetOptions(t Target, m manifest.Manifest) (ptywright.Options, error) {
	opts := ptywright.Options{
		Program:      t.Program,
		Args:         t.Args,
		Dir:          t.Dir,
		Env:          t.Env,
		Size:         t.Size,
		RecordPath:   t.RecordPath,
		RecordRaw:    t.RecordRaw,
		KeepDetached: t.KeepDetached,
	}
	if t.Program != "" {
		return opts, CheckStrings(opts)
	}
	dt := m.DefaultTarget
	if dt == nil || dt.Program == "" {
		return opts, fieldError("program", "required: plugin %q declares no default_target", m.Name)
	}
	opts.Program = dt.Program
	if opts.Args == nil {
		opts.Args = dt.Args
	}
	if opts.Size.Rows == 0 {
		opts.Size.Rows = dt.Rows
	}
	if opts.Size.Cols == 0 {
		opts.Size.Cols = dt.Cols
	}
	env := maps.Clone(dt.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, t.Env)
	opts.Env = env
	missing := dt.MissingEnv(func(key string) (string, bool) {
		if v, ok := env[key]; ok {
			return v, true
		}
		return os.LookupEnv(key)
	})
	if len(missing) > 0 {
		return opts, fieldError("env", "plugin %q's default_target requires %s to be set (pass it in env or in the server's environment)", m.Name, strings.Join(missing, ", "))
	}
	return opts, CheckStrings(opts)
}
