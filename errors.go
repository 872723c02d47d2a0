package ptywright

import (
	"errors"
	"fmt"
	"io/fs"

	"ptywright/internal/wire"
)

// Sentinel errors. Test them with errors.Is: the errors ptywright returns wrap
// them with context. The JSON-RPC server maps each to one error code.
var (
	// ErrTimeout: a wait's deadline passed before its matcher matched. The
	// returned error is a *WaitError carrying the last screen and transcript.
	ErrTimeout = errors.New("ptywright: timed out")
	// ErrCancelled: the caller's context was cancelled.
	ErrCancelled = errors.New("ptywright: cancelled")
	// ErrSessionClosed: the session was closed.
	ErrSessionClosed = errors.New("ptywright: session closed")
	// ErrProcessExited: the program has exited. Input or a signal sent
	// after the exit gets it, and so does a wait that can no longer match:
	// the output is all read, and neither the final screen and transcript
	// nor a stability window to come can satisfy its matcher (see
	// Session.Wait; a resize could still change the screen).
	ErrProcessExited = errors.New("ptywright: process exited")
	// ErrPermissionDenied: a plugin lacks the permission an operation needs.
	ErrPermissionDenied = errors.New("ptywright: permission denied")
	// ErrInvalidParams: a caller passed a malformed or missing argument.
	ErrInvalidParams = wire.ErrInvalidParams
	// ErrIntentRefused: the plugin declined an intent the screen does not
	// allow now (no dialog to approve, a composer that still holds text,
	// no turn to cancel). Nothing was written; the params may be right and
	// the same intent may succeed on a later screen.
	ErrIntentRefused = errors.New("ptywright: intent refused")
	// ErrCapacity: there is no room for another session. A limit of the
	// host ran out while starting it (processes or threads, file
	// descriptors, PTYs, memory: RLIMIT_NPROC, RLIMIT_NOFILE,
	// kernel.pty.max), or a server's own cap on sessions or memory was
	// reached (see CapacityError). Nothing was started and what already
	// runs goes on; the same start may succeed once sessions close.
	ErrCapacity = errors.New("ptywright: at capacity")
	// ErrDialogMismatch: an answer (approve, approve_always, deny,
	// choose_option) met another dialog than the one it was for at the
	// moment of the key (the caller's dialog_id, or the one the plan was
	// made on), or the option it would choose is not the one it means.
	// Nothing was written. The error is a *DialogMismatchError that carries
	// the dialog as it is now.
	ErrDialogMismatch = errors.New("ptywright: dialog mismatch")
	// ErrUnsupported: this platform cannot do it yet. It also matches
	// errors.ErrUnsupported.
	ErrUnsupported = fmt.Errorf("ptywright: %w", errors.ErrUnsupported)
	// ErrNoMatch is returned by extraction when the pattern or sentinels
	// are not in the text, with a result that says so (Matched false,
	// SearchedChars). It is an outcome, not a caller's mistake: it is not
	// ErrInvalidParams, and adapter.extract answers it as a result with
	// "matched": false.
	ErrNoMatch = errors.New("ptywright: no match")
)

// Bad input. Each of these is also ErrInvalidParams (errors.Is matches
// both), the one class the JSON-RPC server answers -32602 for; each names
// what was wrong for a caller that wants to tell them apart.
var (
	// ErrInvalidMatcher is wrapped by every error about a malformed
	// matcher.
	ErrInvalidMatcher = invalidInput("ptywright: invalid matcher", nil)
	// ErrInvalidAction is wrapped by every error Action.Validate and
	// Action.UnmarshalJSON return.
	ErrInvalidAction = invalidInput("ptywright: invalid action", nil)
	// ErrUnknownKey is wrapped by ParseKey when a name is not in the key
	// table.
	ErrUnknownKey = invalidInput("ptywright: unknown key", nil)
	// ErrUnknownSignal is wrapped by ParseSignal when a name is not in the
	// table.
	ErrUnknownSignal = invalidInput("ptywright: unknown signal", nil)
	// ErrInvalidSize is wrapped by every error Size.Validate returns.
	ErrInvalidSize = invalidInput("ptywright: invalid terminal size", nil)
	// ErrInvalidEngine is wrapped by the error an unknown Engine name
	// gives.
	ErrInvalidEngine = invalidInput("ptywright: invalid engine", nil)
	// ErrInvalidRowRange is wrapped by every error RowRange.Validate
	// returns.
	ErrInvalidRowRange = invalidInput("ptywright: invalid row range", nil)
	// ErrInvalidMarker is returned for an empty marker label, and for a
	// new label when the transcript already has 64 (a client looping over
	// fresh labels cannot grow memory without limit).
	ErrInvalidMarker = invalidInput("ptywright: invalid transcript marker", nil)
	// ErrInvalidRedaction is wrapped by RedactionPolicy.Compile errors.
	ErrInvalidRedaction = invalidInput("ptywright: invalid redaction policy", nil)
	// ErrNotHeld is matched by a *NotHeldError: the classification asked
	// for is no longer (or not yet) held by the handle.
	ErrNotHeld = invalidInput("ptywright: classification not held", nil)
	// ErrFileExists is returned when Options.RecordPath, or
	// RawTranscriptPath without append mode, names an existing file:
	// ptywright never overwrites a file. It also matches fs.ErrExist.
	ErrFileExists = invalidInput("ptywright: file already exists (refusing to overwrite)", fs.ErrExist)
)

// inputError is a sentinel of bad input: it is also ErrInvalidParams, and
// the error it wraps, if any.
type inputError struct {
	msg     string
	wrapped error
}

func invalidInput(msg string, wrapped error) error {
	if wrapped != nil {
		msg += ": " + wrapped.Error()
	}
	return &inputError{msg: msg, wrapped: wrapped}
}

func (e *inputError) Error() string { return e.msg }

// Is makes every bad-input sentinel match ErrInvalidParams.
func (e *inputError) Is(target error) bool { return target == ErrInvalidParams }

func (e *inputError) Unwrap() error { return e.wrapped }

// InputError is input that did not all reach the program: Written of Len
// bytes went in before Err (ErrTimeout or ErrCancelled from the caller's
// context, ErrProcessExited, ErrSessionClosed, or the write's own failure)
// stopped it. The program may have read the first Written bytes; the rest
// were never sent.
type InputError struct {
	Written int
	Len     int
	Err     error
}

// Error says what stopped the input and how much of it went in.
func (e *InputError) Error() string {
	return fmt.Sprintf("%v: %d of %d bytes of input written", e.Err, e.Written, e.Len)
}

// Unwrap returns Err, so errors.Is(err, ErrTimeout) and the like match.
func (e *InputError) Unwrap() error { return e.Err }

// CapacityError is the ErrCapacity of a cap a server sets for itself
// (rather than one the host ran out of): which limit, its value and what
// is in use. Limit is "sessions" (the open sessions, Max and InUse
// counting them), "memory" (the Go runtime's memory, in bytes) or
// "address_space" (the process's virtual size against RLIMIT_AS, in
// bytes).
type CapacityError struct {
	Limit string
	Max   int64
	InUse int64
}

// Error names the limit, its value and what is in use.
func (e *CapacityError) Error() string {
	switch e.Limit {
	case "memory":
		return fmt.Sprintf("%v: the server holds %d bytes of memory, at or over its cap of %d", ErrCapacity, e.InUse, e.Max)
	case "address_space":
		return fmt.Sprintf("%v: the server's virtual size is %d bytes, at or over %d (RLIMIT_AS less a reserve)", ErrCapacity, e.InUse, e.Max)
	}
	return fmt.Sprintf("%v: %d of %d %s in use", ErrCapacity, e.InUse, e.Max, e.Limit)
}

// Unwrap makes errors.Is(err, ErrCapacity) match.
func (e *CapacityError) Unwrap() error { return ErrCapacity }
