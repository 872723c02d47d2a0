package ptywright

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrRawTranscriptExists is returned when a raw transcript path already exists
// and append mode was not requested. The error also matches fs.ErrExist.
var ErrRawTranscriptExists = errors.New("ptywright: raw transcript file already exists (refusing to overwrite; use append mode to add to it)")

// openRawSink opens the file that receives raw, unredacted PTY bytes.
//
// A new file is created with O_EXCL and mode 0600: raw output holds secrets,
// and O_EXCL also refuses a pre-planted symlink. appendMode opens with
// O_APPEND, creating the file with 0600 if absent and leaving an existing
// file's permissions alone. On Windows the mode is ignored (default ACLs).
// Errors name the path.
func openRawSink(path string, appendMode bool) (*os.File, error) {
	if path == "" {
		return nil, &FieldError{Field: "raw_transcript_path", Reason: "must not be empty", Err: fs.ErrInvalid}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if appendMode {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		if !appendMode && errors.Is(err, fs.ErrExist) {
			return nil, &rawSinkExistsError{path: path, err: err}
		}
		return nil, fmt.Errorf("raw transcript: %w", err)
	}
	return f, nil
}

// rawSinkExistsError names the path once and matches both
// ErrRawTranscriptExists and the underlying *fs.PathError (fs.ErrExist).
type rawSinkExistsError struct {
	path string
	err  error
}

func (e *rawSinkExistsError) Error() string {
	return fmt.Sprintf("raw transcript %q: %v", e.path, ErrRawTranscriptExists)
}

func (e *rawSinkExistsError) Unwrap() []error { return []error{ErrRawTranscriptExists, e.err} }
