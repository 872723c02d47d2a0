package host

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"syscall"

	"ptywright"
)

// CheckStrings checks the strings of a start request the OS cannot take as
// given, as a *ptywright.FieldError naming the field: a NUL byte anywhere
// (exec and open end a C string there, or refuse it), and an env name that
// is empty or holds '=' (the program would see {"A=B": "x"} as A="B=x").
// Checked before spawning, so the caller hears which field is wrong rather
// than an internal error, and nothing is started.
func CheckStrings(o ptywright.Options) error {
	switch {
	case hasNUL(o.Program):
		return fieldError("program", "contains a NUL byte")
	case hasNUL(o.Dir):
		return fieldError("cwd", "contains a NUL byte")
	case hasNUL(o.RawTranscriptPath):
		return fieldError("raw_transcript_path", "contains a NUL byte")
	case hasNUL(o.RecordPath):
		return fieldError("record_path", "contains a NUL byte")
	}
	if i := slices.IndexFunc(o.Args, hasNUL); i >= 0 {
		return fieldError("args", "args[%d] contains a NUL byte", i)
	}
	// Sorted: the same request names the same variable every time.
	for _, name := range slices.Sorted(maps.Keys(o.Env)) {
		switch {
		case name == "":
			return fieldError("env", "a variable name is empty")
		case strings.Contains(name, "="):
			return fieldError("env", "variable name %q contains '='", name)
		case hasNUL(name):
			return fieldError("env", "variable name %q contains a NUL byte", name)
		case hasNUL(o.Env[name]):
			// The value is not quoted: it may be a secret.
			return fieldError("env", "the value of %s contains a NUL byte", name)
		}
	}
	return nil
}

// StartError names the field of a start failure only the whole request
// explains: args and env longer than the system takes (E2BIG) become a
// *ptywright.FieldError naming "args". Any other error is returned as is.
func StartError(err error) error {
	if errors.Is(err, syscall.E2BIG) {
		return fieldError("args", "args and env together are longer than the system takes (%v)", err)
	}
	return err
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }
